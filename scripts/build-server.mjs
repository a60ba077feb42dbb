// Compiles the server side that runs outside Next into dist/ with esbuild, so `npm start` and
// the CLI run plain JavaScript with `node` (no TypeScript loader in production):
// - dist/launcher.mjs: `npm start` (server/launcher.ts);
// - dist/console-thread.mjs: the thread the launcher runs Next in (server/console-thread.ts);
// - dist/cli.mjs: the operator CLI (server/cli/main.ts);
// - dist/content-worker.mjs: the Markdown conversion worker the piscina pool loads
//   (server/runtime/content-worker-entry.ts: server/content/worker.ts, and its spans when traces are on).
// The launcher and the CLI keep npm packages external (resolved from node_modules at run time,
// as Next's own server code is); the worker bundles everything so each thread starts without
// module resolution, except OpenTelemetry's packages: the SDK is loaded only when traces are on
// (server/runtime/tracing-sdk.ts), and it must share the thread's one copy of the API. The
// banner gives ESM bundles a `require` for CommonJS code esbuild inlines.
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
    entryPoints: [path.join(root, 'server/runtime/content-worker-entry.ts')],
    outfile: path.join(root, 'dist/content-worker.mjs'),
    external: ['@opentelemetry/*'],
  }),
]);
console.log('built dist/launcher.mjs, dist/console-thread.mjs, dist/cli.mjs, dist/content-worker.mjs');
