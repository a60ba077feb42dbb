// eslint: Next's rules (core web vitals, React hooks, jsx-a11y) and typescript-eslint's
// recommended set for TypeScript. Formatting is prettier's job (`npm run format`), so no
// stylistic rules here.
import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

/** One `no-restricted-imports` block per directory: [pattern of a specifier, why not]. */
function layerRules(layers) {
  return Object.entries(layers).map(([files, rules]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': ['error', { patterns: rules.map(([regex, message]) => ({ regex, message })) }],
    },
  }));
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
    'docs/author-api.d.ts',
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
  // Who may import whom (docs/architecture.md "Layers"), per directory. Specifiers are matched
  // as written: `@/…` from app/, relative paths elsewhere.
  ...layerRules({
    'app/**': [
      ['(^|/)db/', 'app/ reads the database through server/services or server/console'],
      ['(^|/)server/http/(?!multipart-file$)', 'app/ may reuse only server/http/multipart-file.ts'],
      ['(^|/)server/api/(?!openapi/)', 'app/ may reuse only the OpenAPI document (server/api/openapi/)'],
      ['(^|/)server/launcher$', 'nothing imports the launcher'],
    ],
    'server/services/**': [
      ['^(\\.\\./)+(http|api|console|public|cli)/', 'the domain knows nothing of HTTP, tRPC, Next or the CLI'],
      ['^(\\.\\./)+(runtime|launcher)$', 'the domain is handed its parts; it never asks the runtime'],
      ['^(next|@trpc|trpc-to-openapi)(/|$)', 'the domain knows nothing of Next or tRPC'],
    ],
    'server/api/**': [
      ['^(\\.\\./)+(http|console|cli)/', 'procedures know tRPC and zod, not node:http or the console'],
      ['^(\\.\\./)+db/', 'procedures reach the database through server/services'],
      ['^(\\.\\./)+launcher$', 'nothing imports the launcher'],
      ['^node:http$', 'procedures know tRPC and zod, not node:http'],
    ],
    'server/console/**': [
      ['^(\\.\\./)+(http|api|cli)/', 'the console reaches the domain, not the HTTP server or the procedures'],
      ['^(\\.\\./)+launcher$', 'nothing imports the launcher'],
    ],
    'server/{content,media}/**': [
      ['^(\\.\\./)+(services|http|api|console|public|cli)/', 'content and media are leaves'],
      ['^(\\.\\./)+(runtime|launcher)$', 'content and media are leaves'],
      ['^(\\.\\./)+db/', 'content and media are leaves'],
    ],
    'db/**': [['^(\\.\\./)+(server|app)/', 'db/ builds what it is asked for and imports nothing of ours']],
  }),
  {
    // No import loops among our modules: a loop hides which layer owns a rule.
    files: ['server/**', 'app/**', 'db/**'],
    rules: { 'import/no-cycle': 'error' },
  },
  {
    // Tests and benchmarks poke at JSON bodies whose shape is the very thing under test.
    files: ['tests/**', 'e2e/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
]);
