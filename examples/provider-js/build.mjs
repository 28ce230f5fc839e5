// Builds provider.js into provider.wasm with componentize-js:
//   node build.mjs [SOURCE] [WIT-FOLDER] [OUTPUT]
// The `http` feature gives the guest `fetch` over wasi:http; the host lets
// it reach only the origins it was granted.
import { componentize } from '@bytecodealliance/componentize-js';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const [source = here('./provider.js'), wit = here('./wit'), out = here('./provider.wasm')] =
  process.argv.slice(2);
const { component } = await componentize({
  sourcePath: source,
  witPath: wit,
  worldName: 'skill-provider',
  enableFeatures: ['http'],
});
await writeFile(out, component);
console.log(`built ${out} (${component.length} bytes)`);
