// eslint: Next's rules (core web vitals, React hooks, jsx-a11y) and typescript-eslint's
// recommended set for TypeScript. Formatting is prettier's job (`npm run format`), so no
// stylistic rules here.
import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

/**
 * The floors of docs/architecture.md ("Layers") and what each may import. Everything of ours not
 * listed is refused, with the floor's reason. import/no-restricted-paths resolves every
 * specifier to a file (the TypeScript resolver reads tsconfig's `@/` alias), so `@/server/http/x`
 * and `../http/x` are the same import to it; tests/unit/lint-layers.test.ts shows both refused,
 * with every floor as the importer (it reads this list).
 */
export const FLOORS = {
  'server/launcher.ts': {
    may: ['server/runtime', 'server/http', 'db', 'server/foundation'],
    why: 'the launcher starts the process from the runtime, the HTTP server and the database',
  },
  'proxy.ts': {
    may: [],
    except: { 'server/console': ['./return-path.ts'] },
    why: "Next's proxy runs before every console request: it sets headers, and reads only the console's name for the requested path",
  },
  'server/console-thread.ts': {
    may: ['server/runtime', 'server/foundation'],
    why: 'the console thread builds its parts in the runtime and serves Next; it answers nothing itself',
  },
  'server/runtime': {
    may: [
      'server/admission',
      'server/services',
      'server/data',
      'server/model',
      'server/content',
      'server/media',
      'db',
      'server/foundation',
    ],
    why: 'the runtime builds parts from the domain and its leaves; it serves no request',
  },
  'server/http': {
    may: [
      'server/admission',
      'server/api',
      'server/runtime',
      'server/services',
      'server/model',
      'server/reader-pages',
      'server/content',
      'server/media',
      'db',
      'server/foundation',
    ],
    why: 'node:http reaches the domain through the procedures, the services and the public pages, never the console',
  },
  app: {
    may: [
      'server/admission',
      'server/console',
      'server/runtime',
      'server/services',
      'server/reader-pages',
      'server/model',
      'server/content',
      'server/media',
      'server/foundation',
    ],
    except: { 'server/http': ['./multipart-file.ts'], 'server/api': ['./openapi'] },
    why: 'app/ reads through server/console and server/services, never the database or the HTTP server',
  },
  'server/api': {
    may: ['server/admission', 'server/runtime', 'server/services', 'server/model', 'server/foundation'],
    why: 'procedures know tRPC and zod; they reach data through server/services, never node:http or the database',
  },
  'server/console': {
    may: [
      'server/admission',
      'server/runtime',
      'server/services',
      'server/data',
      'server/model',
      'server/reader-pages',
      'server/content',
      'server/media',
      'db',
      'server/foundation',
    ],
    why: 'the console reaches the domain, not the HTTP server or the procedures',
  },
  'server/reader-pages': {
    may: ['server/services', 'server/data', 'server/model', 'server/content', 'server/foundation'],
    why: 'the public pages render what the domain gives them; they know nothing of requests or the console',
  },
  'server/cli': {
    may: [
      'server/admission',
      'server/runtime',
      'server/services',
      'server/data',
      'server/model',
      'db',
      'server/foundation',
    ],
    why: 'the CLI runs the domain with parts of its own, without the HTTP server or the console',
  },
  'server/services': {
    may: [
      'server/admission',
      'server/data',
      'server/model',
      'server/content',
      'server/media',
      'db',
      'server/foundation',
    ],
    why: 'the domain knows nothing of HTTP, tRPC, Next or the CLI, and is handed its parts',
  },
  'server/data': {
    may: ['server/admission', 'server/model', 'db', 'server/foundation'],
    why: 'data access knows rows and statements, not the rules that use them',
  },
  'server/admission': {
    may: ['server/model', 'db', 'server/foundation'],
    why: 'the admission (token match, window charge, lanes, admitted statements) knows statements and the model, not the domain that reads through it',
  },
  'server/model': { may: ['server/foundation'], why: 'the model is plain rules and numbers' },
  'server/content': {
    may: ['server/foundation'],
    why: 'content is a leaf: Markdown in, sanitized HTML out, nothing of media, the domain or the transport',
  },
  'server/media': {
    may: ['server/foundation'],
    why: 'media is a leaf: images, downloads and storage, nothing of content, the domain or the transport',
  },
  db: { may: ['server/foundation'], why: 'db/ builds what it is asked for and imports nothing of ours but the leaves' },
  'server/foundation': { may: [], why: 'the process-wide leaves import nothing of ours' },
};

/** One zone per floor and refused floor, for import/no-restricted-paths. */
function layerZones(floors) {
  const names = Object.keys(floors);
  return names.flatMap((target) =>
    names
      .filter((from) => from !== target && !floors[target].may.includes(from))
      .map((from) => ({
        target: `./${target}`,
        from: `./${from}`,
        except: floors[target].except?.[from],
        message: floors[target].why,
      })),
  );
}

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([
    '.next/**',
    'dist/**',
    'node_modules/**',
    'test-results/**',
    'playwright-report/**',
    '.data/**',
    'next-env.d.ts',
    // Generated by openapi-typescript (clients/typescript `npm run generate`), and its build.
    'clients/typescript/src/schema.ts',
    'clients/typescript/dist/**',
    'tests/fixtures/**',
    // A developer's own scripts (gitignored).
    'scratch/**',
  ]),
  {
    rules: {
      // `_`-prefixed names mark parameters kept for a signature's shape.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  // Who may import whom (docs/architecture.md "Layers"), by file, however the import is written.
  {
    files: ['server/**', 'app/**', 'db/**', 'proxy.ts'],
    rules: { 'import/no-restricted-paths': ['error', { zones: layerZones(FLOORS) }] },
  },
  // Which packages a floor may not know.
  {
    files: ['server/services/**', 'server/data/**', 'server/model/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(next|@trpc|trpc-to-openapi)(/|$)', message: 'the domain knows nothing of Next or tRPC' },
          ],
        },
      ],
    },
  },
  {
    files: ['server/api/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^node:http$', message: 'procedures know tRPC and zod, not node:http' }] },
      ],
    },
  },
  {
    // Next keeps every tag revalidatePath/revalidateTag was given for the life of the process; a
    // path made from a request (an article's id) is memory that grows with what clients send.
    files: ['app/**', 'server/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name=/^revalidate(Path|Tag)$/][arguments.0.type!='Literal']",
          message:
            'a fixed string only: Next keeps each path or tag for the life of the process (console pages are dynamic: refresh() refreshes them)',
        },
      ],
    },
  },
  {
    // No import loops among our modules: a loop hides which layer owns a rule. The rule maps the
    // imports of every module it reaches; npm packages cannot import ours, so it need not parse
    // them (`import/ignore`), which was 19 of eslint's 28 s of rule time.
    files: ['server/**', 'app/**', 'db/**', 'proxy.ts'],
    settings: { 'import/ignore': ['node_modules'] },
    rules: { 'import/no-cycle': 'error' },
  },
  {
    // Tests and benchmarks poke at JSON bodies whose shape is the very thing under test.
    files: ['tests/**', 'e2e/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
]);
