// Skills fetched over wasi:http from the origin named in the `url` setting,
// served to skillhost over skillhost:provider@0.3.0.
let url = '';
let skills = new Map();
const notFound = (what) => ({ tag: 'not-found', val: what });
const doc = (s) => new TextEncoder().encode(`---\n${s.raw}---\n${s.body}`);
const entry = (s) => ({ name: s.name, frontmatter: { raw: s.raw, json: JSON.stringify(s.fields) },
  path: `${s.name}/SKILL.md`, base: s.name }); // no leading "/": this provider's own namespace
const skill = (name) => { if (!skills.has(name)) throw notFound(name); return skills.get(name); };
const file = (name, path) => { if (path !== 'SKILL.md') throw notFound(path); return doc(skill(name)); };
const hex = async (bytes) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
  .map((b) => b.toString(16).padStart(2, '0')).join('');

export const provider = {
  manifest: () => ({ summary: 'Skills fetched from the server at its url setting', roots: 'none',
    origins: ['*'], settings: [{ key: 'url', required: true, description: 'where skills.json is' }] }),
  init(config) { url = (config.settings.find(([k]) => k === 'url') ?? [])[1] ?? '';
    if (!url) throw { tag: 'invalid', val: 'the url setting is required' }; },
  async snapshot() {
    try {
      const answer = await fetch(url);
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      const listed = (await answer.json()).skills;
      skills = new Map(listed.map((s) => { const fields = { name: s.name, ...s.frontmatter };
        const raw = Object.entries(fields).map(([k, v]) => `${k}: ${JSON.stringify(v)}\n`).join('');
        return [s.name, { ...s, fields, raw }]; }));
      return { epoch: 1n, skills: [...skills.values()].map(entry), removed: [], diagnostics: [], complete: true };
    } catch (e) {
      return { epoch: 1n, skills: [], removed: [], complete: false,
        diagnostics: [{ severity: 'error', path: url, message: `cannot fetch skills: ${e}` }] };
    }
  },
  load: (name) => ({ entry: entry(skill(name)), body: skill(name).body }),
  async listResources(name) { const bytes = doc(skill(name));
    return [{ path: 'SKILL.md', size: BigInt(bytes.length), digest: `sha256:${await hex(bytes)}` }]; },
  readResource: file,
  readResourceRange: (name, path, at, n) => file(name, path).slice(Number(at), Number(at + n)),
  onChange() {},
  observe() {},
};
