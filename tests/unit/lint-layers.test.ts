/**
 * The layer rules of eslint.config.mjs hold however an import is written: through tsconfig's
 * `@/` alias or a relative path, each forbidden import below is refused with its floor's
 * reason, and the allowed ones beside them pass (so the rule is not refusing everything).
 * Every floor of the config's `FLOORS` is tried as the importer, both ways.
 * The files are linted as text under the path they would have; nothing is written.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
let eslint: ESLint;

beforeAll(() => {
  // import/no-cycle would follow every import through the code base; these cases are about zones.
  eslint = new ESLint({ cwd: ROOT, overrideConfig: { rules: { 'import/no-cycle': 'off' } } });
});

async function layerProblems(file: string, specifier: string): Promise<string[]> {
  const code = `import * as probe from '${specifier}';\nexport const used = probe;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'import/no-restricted-paths').map((m) => m.message);
}

/** [the importing file, the same forbidden module written as an alias and relatively, the reason]. */
const FORBIDDEN: [string, string, string, RegExp][] = [
  ['server/services/probe.ts', '@/server/http/errors', '../http/errors', /the domain knows nothing of HTTP/],
  ['server/services/probe.ts', '@/server/runtime/create-app', '../runtime/create-app', /is handed its parts/],
  ['server/api/posts/probe.ts', '@/db/statements', '../../../db/statements', /never node:http or the database/],
  ['server/api/probe.ts', '@/server/http/errors', '../http/errors', /procedures know tRPC and zod/],
  ['server/content/probe.ts', '@/server/media/image', '../media/image', /content is a leaf/],
  ['server/media/probe.ts', '@/server/content/urls', '../content/urls', /media is a leaf/],
  ['server/foundation/probe.ts', '@/server/services/posts/slugs', '../services/posts/slugs', /import nothing of ours/],
  [
    'server/reader-pages/probe.ts',
    '@/server/console/preview',
    '../console/preview',
    /know nothing of requests or the console/,
  ],
  ['server/runtime/probe.ts', '@/server/http/errors', '../http/errors', /it serves no request/],
  // The runtime reads nothing of the console (the session cookie's name is the model's).
  ['server/runtime/probe.ts', '@/server/console/session-store', '../console/session-store', /it serves no request/],
  ['server/http/probe.ts', '@/server/console/preview', '../console/preview', /never the console/],
  ['server/data/probe.ts', '@/server/services/posts/slugs', '../services/posts/slugs', /not the rules that use them/],
  ['server/model/probe.ts', '@/server/data/usage-counters', '../data/usage-counters', /plain rules/],
  ['app/console/probe.tsx', '@/db/statements', '../../db/statements', /never the database/],
  [
    'app/console/probe.tsx',
    '@/server/http/errors',
    '../../server/http/errors',
    /never the database or the HTTP server/,
  ],
  ['db/probe.ts', '@/server/services/posts/slugs', '../server/services/posts/slugs', /imports nothing of ours/],
  ['server/services/probe.ts', '@/server/launcher', '../launcher', /the domain knows nothing/],
  ['server/launcher.ts', '@/server/console/preview', './console/preview', /the launcher starts the process/],
  ['server/console-thread.ts', '@/server/http/errors', './http/errors', /the console thread builds its parts/],
  ['server/console/probe.ts', '@/server/http/errors', '../http/errors', /not the HTTP server or the procedures/],
  ['server/console/probe.ts', '@/server/api/routes', '../api/routes', /not the HTTP server or the procedures/],
  ['server/cli/probe.ts', '@/server/http/errors', '../http/errors', /without the HTTP server or the console/],
  ['server/cli/probe.ts', '@/server/console/preview', '../console/preview', /without the HTTP server or the console/],
  [
    'server/admission/probe.ts',
    '@/server/services/posts/slugs',
    '../services/posts/slugs',
    /not the domain that reads through it/,
  ],
  ['proxy.ts', '@/server/console/preview', './server/console/preview', /Next's proxy runs before every console/],
  ['proxy.ts', '@/server/foundation/log', './server/foundation/log', /Next's proxy runs before every console/],
];

/** Imports the same floors may make. */
const ALLOWED: [string, string][] = [
  ['server/services/probe.ts', '@/server/data/usage-counters'],
  ['server/services/probe.ts', '../foundation/errors'],
  ['server/api/probe.ts', '../services/posts/slugs'],
  ['server/http/probe.ts', '@/server/api/routes'],
  ['app/console/probe.tsx', '@/server/http/multipart-file'],
  ['app/console/probe.tsx', '@/server/api/openapi/document'],
  ['server/runtime/probe.ts', '../model/session'],
  ['server/reader-pages/probe.ts', './article-document'],
  ['server/launcher.ts', './runtime/create-app'],
  ['server/console-thread.ts', '@/server/runtime/console-thread-host'],
  ['server/console/probe.ts', '../data/usage-counters'],
  ['server/cli/probe.ts', '@/server/data/tokens'],
  ['server/admission/probe.ts', '../model/account'],
  ['proxy.ts', '@/server/console/return-path'],
  ['server/data/probe.ts', '../model/account'],
  ['server/model/probe.ts', '@/server/foundation/errors'],
  ['server/content/probe.ts', '../foundation/log'],
  ['server/media/probe.ts', '@/server/foundation/errors'],
  ['db/probe.ts', '../server/foundation/log'],
];

/** The floor a file is on: the floor itself (a file floor) or the folder it is in. */
const floorOf = (file: string, floors: string[]) =>
  floors.find((floor) => file === floor || file.startsWith(`${floor}/`));

describe('layer rules (eslint.config.mjs)', () => {
  it.each(FORBIDDEN)('%s may not import %s, nor %s', async (file, alias, relative, reason) => {
    for (const specifier of [alias, relative]) {
      const problems = await layerProblems(file, specifier);
      expect(problems, `${file} importing ${specifier}`).toHaveLength(1);
      expect(problems[0]).toMatch(reason);
    }
  });

  it.each(ALLOWED)('%s may import %s', async (file, specifier) => {
    expect(await layerProblems(file, specifier)).toEqual([]);
  });

  it('tries every floor as an importer, refused and allowed', async () => {
    const config = (await import(pathToFileURL(path.join(ROOT, 'eslint.config.mjs')).href)) as {
      FLOORS: Record<string, unknown>;
    };
    const floors = Object.keys(config.FLOORS);
    expect(floors.length).toBeGreaterThan(10);
    const refused = new Set(FORBIDDEN.map(([file]) => floorOf(file, floors)));
    const allowed = new Set(ALLOWED.map(([file]) => floorOf(file, floors)));
    expect(floors.filter((floor) => !refused.has(floor))).toEqual([]);
    expect(floors.filter((floor) => !allowed.has(floor) && floor !== 'server/foundation')).toEqual([]);
  });
});

describe('revalidation paths (eslint.config.mjs)', () => {
  const problems = async (call: string) => {
    const code = `import { revalidatePath, revalidateTag } from 'next/cache';\nexport function probe(id: string) {\n  ${call};\n}\n`;
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, 'app/console/actions/probe.ts') });
    return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
  };

  it.each([
    'revalidatePath(`/console/articles/${id}`)',
    'revalidatePath("/console/articles/" + id)',
    "revalidateTag(id, 'max')",
  ])('refuses a path or tag made at run time: %s', async (call) => {
    expect(await problems(call)).toEqual([expect.stringMatching(/a fixed string only/)]);
  });

  it('allows a fixed path', async () => {
    expect(await problems("revalidatePath('/console/media')")).toEqual([]);
  });
});
