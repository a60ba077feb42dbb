// eslint: Next's rules (core web vitals, React hooks, jsx-a11y) and typescript-eslint's
// recommended set for TypeScript. Formatting is prettier's job (`npm run format`), so no
// stylistic rules here.
import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

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
  {
    // Tests and benchmarks poke at JSON bodies whose shape is the very thing under test.
    files: ['tests/**', 'e2e/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
]);
