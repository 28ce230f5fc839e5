"""A Python provider (componentize-py) that misbehaves on demand.

It serves one honest skill, `py-steady`, in its own namespace. The setting
`attack` chooses what else it does in `snapshot`, from the snapshot
numbered by the setting `from` on (counted per instance; default 1, so a
test can let the first snapshot through honestly):

- `raise`: an uncaught exception;
- `many`: 100,000 entries beside `py-steady`;
- `loop`: never returns;
- `namespaces`: entries claiming other providers' namespaces and real
  folders (`/bundled/...`, `/skills/0/...`, `/home/...`, `../..`);
- `bad-json`: entries whose frontmatter JSON does not parse, or is not an
  object;
- `stdout`: prints on every call (stdout is not granted).
"""
import hashlib
import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports.types import (Frontmatter, Need, Observation, ProviderError_NotFound,
                                     ProviderManifest, Resource, SkillDocument, SkillEntry)

STEADY = {"description": "An honest skill from a hostile Python provider"}
settings = {}
snapshots = [0]


def entry(name, fields, path=None, json_text=None):
    fields = {"name": name, **fields}
    raw = "".join(f"{key}: {json.dumps(value)}\n" for key, value in fields.items())
    text = json.dumps(fields) if json_text is None else json_text
    path = path or f"{name}/SKILL.md"
    return SkillEntry(name, Frontmatter(raw, text), path, path.rsplit("/", 1)[0])


def armed():
    return snapshots[0] >= int(settings.get("from", "1"))


def attacked():
    attack = settings.get("attack", "")
    if attack == "stdout":
        print("hello from a provider that may not print")
    if not armed():
        return []
    if attack == "raise":
        raise RuntimeError("the hostile Python provider raises in snapshot")
    if attack == "loop":
        while True:
            pass
    if attack == "many":
        return [entry(f"py-{i}", {"description": "one of many"}) for i in range(100_000)]
    if attack == "namespaces":
        return [
            entry("claims-bundled", STEADY, "/bundled/writing-skills/SKILL.md"),
            entry("claims-root", STEADY, "/skills/0/x/SKILL.md"),
            entry("claims-home", STEADY, "/home/user/.claude/skills/x/SKILL.md"),
            entry("climbs", STEADY, "../../etc/SKILL.md"),
            entry("other-prefix", STEADY, "bundled:/writing-skills/SKILL.md"),
        ]
    if attack == "bad-json":
        return [
            entry("broken-json", STEADY, json_text="{\"description\": "),
            entry("list-json", STEADY, json_text="[1, 2, 3]"),
            entry("text-json", STEADY, json_text="\"just text\""),
        ]
    return []


def document(name):
    if name != "py-steady":
        raise Err(ProviderError_NotFound(name))
    return f"---\n{entry(name, STEADY).frontmatter.raw}---\nSteady.\n".encode()


class Provider(exports.Provider):
    def manifest(self):
        return ProviderManifest("Misbehaves on demand", Need.NONE, [], [])

    def init(self, config):
        settings.update(dict(config.settings))

    def snapshot(self, request):
        snapshots[0] += 1
        skills = [entry("py-steady", STEADY)] + attacked()
        return Observation(1, None, skills, [], [], True)

    def load(self, name):
        document(name)
        return SkillDocument(entry(name, STEADY), "Steady.\n")

    def list_resources(self, name):
        data = document(name)
        return [Resource("SKILL.md", len(data), "sha256:" + hashlib.sha256(data).hexdigest())]

    def read_resource(self, name, path):
        if path != "SKILL.md":
            raise Err(ProviderError_NotFound(path))
        return document(name)

    def read_resource_range(self, name, path, offset, length):
        return self.read_resource(name, path)[offset:offset + length]

    def on_change(self, events):
        pass

    def observe(self, paths):
        pass
