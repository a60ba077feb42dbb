// Compiles the server side that runs outside Next into dist/ with esbuild, so `npm start` and
// the CLI run plain JavaScript with `node` (no TypeScript loader in production):
// - dist/launcher.mjs: `npm start` (server/launcher.ts);
// - dist/console-thread.mjs: the thread the launcher runs Next in (server/console-thread.ts);
// - dist/cli.mjs: the operator CLI (server/cli/main.ts);
// - dist/content-worker.mjs: the Markdown conversion worker the piscina pool loads.
// The launcher and the CLI keep npm packages external (resolved from node_modules at run time,
// as Next's own server code is); the worker bundles everything so each thread starts without
// module resolution. The banner gives ESM bundles a `require` for CommonJS code esbuild inlines.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
};

await Promise.all([
  build({
    ...common,
    entryPoints: {
      launcher: path.join(root, 'server/launcher.ts'),
      'console-thread': path.join(root, 'server/console-thread.ts'),
      cli: path.join(root, 'server/cli/main.ts'),
    },
    outdir: path.join(root, 'dist'),
    outExtension: { '.js': '.mjs' },
    packages: 'external',
  }),
  build({
    ...common,
    entryPoints: [path.join(root, 'server/content/worker.ts')],
    outfile: path.join(root, 'dist/content-worker.mjs'),
  }),
]);
console.log('built dist/launcher.mjs, dist/console-thread.mjs, dist/cli.mjs, dist/content-worker.mjs');
