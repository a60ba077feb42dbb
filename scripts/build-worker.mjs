// Bundles the content pipeline worker (server/content/worker.ts) into dist/content-worker.mjs,
// the file the piscina pool loads (server/content/pool.ts). Every dependency is bundled so the
// worker starts without module resolution; the banner gives ESM bundles a `require` for the
// CommonJS code esbuild inlines.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [path.join(root, 'server/content/worker.ts')],
  outfile: path.join(root, 'dist/content-worker.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
console.log('built dist/content-worker.mjs');
