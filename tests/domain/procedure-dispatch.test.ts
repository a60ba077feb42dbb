import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { appRouter } from '../../server/api/root';
import { DomainError } from '../../server/foundation/errors';
import { matchApiRoute } from '../../server/http/api-path';
import { describeZodError } from '../../server/http/errors';
import { ProcedureOutcome, runProcedure } from '../../server/http/rest-procedures';
import { createPost } from '../../server/services/posts/post-writes';
import { awayFromMinuteBoundary, domainDatabase, newAccount } from './support';

/**
 * The REST mount runs appRouter's procedures itself (server/http/rest-procedures.ts, through
 * server/api/procedure-internals.ts), not through tRPC. Here the same real procedures run both
 * ways on PostgreSQL: through tRPC's own `createCaller` and through the REST runner. Same result,
 * same headers, same charge; the same failure (tRPC hands it wrapped in a TRPCError, and reports
 * a refused input as the ZodError the REST mount describes). A tRPC upgrade that changes how
 * middlewares run (their order, the context they hand on, what `next()` returns) fails here.
 */
const domain = domainDatabase();

type Caller = Record<string, Record<string, (input: unknown) => Promise<unknown>>>;

/** One call both ways: the REST runner's outcome, and tRPC's result or failure with what it set on its own outcome. */
async function bothWays(
  secret: string,
  request: { method: string; path: string; query?: string; body?: unknown; input: unknown },
) {
  const headers = { get: (name: string) => (name === 'authorization' ? `Bearer ${secret}` : null) };
  const matched = matchApiRoute(request.method, request.path)!;
  const ours = new ProcedureOutcome();
  await runProcedure(domain.parts(), { matched, query: request.query ?? '', headers, body: request.body }, ours);

  const theirs = new ProcedureOutcome();
  const caller = appRouter.createCaller({ parts: domain.parts(), headers, res: theirs }) as unknown as Caller;
  const [router, name] = matched.route.procedure!.split('.') as [string, string];
  let data: unknown;
  let error: unknown;
  try {
    data = await caller[router]![name]!(request.input);
  } catch (err) {
    error = err;
  }
  return { ours, theirs, data, error };
}

/** Both were charged to the same window, one unit apart (the runner's call came first), or neither was. */
function chargedAlike(ours: ProcedureOutcome, theirs: ProcedureOutcome) {
  if (!ours.window) return expect(theirs.window).toBeUndefined();
  expect(theirs.window).toBeDefined();
  expect(theirs.window!.limit).toBe(ours.window.limit);
  expect(theirs.window!.remaining).toBe(ours.window.remaining - 1);
}

/** tRPC's failure is the runner's, wrapped: the same domain error, or a refused input the runner describes. */
function failedAlike(ours: ProcedureOutcome, error: unknown) {
  expect(ours.error).toBeInstanceOf(DomainError);
  expect(error).toBeInstanceOf(TRPCError);
  const cause = (error as TRPCError).cause;
  if (cause instanceof ZodError) {
    expect((error as TRPCError).code).toBe('BAD_REQUEST');
    expect((ours.error as DomainError).kind).toBe('invalid');
    expect((ours.error as DomainError).message).toBe(describeZodError(cause));
  } else {
    expect(cause).toBeInstanceOf(DomainError);
    expect({ kind: (cause as DomainError).kind, message: (cause as DomainError).message }).toEqual({
      kind: (ours.error as DomainError).kind,
      message: (ours.error as DomainError).message,
    });
  }
}

describe("appRouter's procedures: the REST runner answers as tRPC's createCaller does", () => {
  it('GET /me, GET /posts/{id}, GET /posts: the same result, headers and charge', async () => {
    const account = await newAccount(domain.db());
    for (const title of ['First', 'Second'])
      await createPost(domain.write(account.id), { title, markdown: `# ${title}\n\nBody *text*.`, tags: ['alpha'] });
    const post = await createPost(domain.write(account.id), { title: 'Third', markdown: 'x' });
    await awayFromMinuteBoundary();
    const requests = [
      { method: 'GET', path: '/me', input: undefined },
      { method: 'GET', path: `/posts/${post.id}`, input: { id: post.id } },
      { method: 'GET', path: '/posts', query: 'limit=2', input: { limit: 2 } },
    ];
    for (const request of requests) {
      const { ours, theirs, data, error } = await bothWays(account.secret, request);
      expect(error, `${request.path} through createCaller`).toBeUndefined();
      expect(ours.error, `${request.path} through the runner`).toBeUndefined();
      expect(JSON.parse(ours.body!)).toEqual(JSON.parse(JSON.stringify(data)));
      expect(ours.headers).toEqual(theirs.headers);
      chargedAlike(ours, theirs);
    }
    // The page's cursor is the same signed position both ways, and the article its ETag.
    const page = await bothWays(account.secret, requests[2]!);
    expect((page.data as { next_cursor: string }).next_cursor).toMatch(/\S/);
    const one = await bothWays(account.secret, requests[1]!);
    expect(one.ours.headers.etag).toMatch(/^"/);
  });

  it('fails alike: a bad token before a bad input, a refused input charged (reads and writes), an unknown article', async () => {
    const account = await newAccount(domain.db());
    await awayFromMinuteBoundary();
    const cases = [
      // A read's handler admits; its input refused first, the middleware admits after: 401, not 400.
      {
        secret: 'dp_live_not-a-token',
        method: 'GET',
        path: '/posts/not-a-uuid',
        input: { id: 'not-a-uuid' },
        kind: 'unauthenticated',
      },
      // A refused read input is still charged (admitted after the failure).
      { secret: account.secret, method: 'GET', path: '/posts', query: 'limit=0', input: { limit: 0 }, kind: 'invalid' },
      // A write is admitted before its input is parsed: a refused body is charged.
      {
        secret: account.secret,
        method: 'POST',
        path: '/posts',
        body: { title: '' },
        input: { title: '' },
        kind: 'invalid',
      },
      { secret: account.secret, method: 'GET', path: `/posts/${randomUUID()}`, kind: 'not_found' },
    ];
    for (const { secret, kind, ...request } of cases) {
      const input = request.input ?? { id: request.path.slice('/posts/'.length) };
      const { ours, theirs, error } = await bothWays(secret, { ...request, input });
      expect((ours.error as DomainError).kind, request.path).toBe(kind);
      failedAlike(ours, error);
      chargedAlike(ours, theirs);
      if (kind !== 'unauthenticated') expect(ours.window).toBeDefined();
    }
  });
});
