/**
 * What running a REST procedure costs in CPU, in process, by the way it is dispatched: the REST
 * mount's own runner (server/http/rest-procedures.ts `runProcedure`) against tRPC's public API
 * for the same procedures of `appRouter`, with the same middlewares, the same input and the
 * same JSON text out:
 *
 * - `handler alone`: no dispatch at all, the floor: the resolver called with the context the
 *   middleware would build (its `admitAndRead`), the input parsed by its schema, the result
 *   written by the compiled serializer (server/http/json-serializers.ts);
 * - `handler, output parsed by zod`: the same, plus what tRPC's output step adds alone (zod
 *   parsing and copying the result before it is written);
 * - `our runner`: `runProcedure`, as the REST mount calls it for a matched route;
 * - `createCaller`: `appRouter.createCaller(ctx)` per request (tRPC's server-side caller), the
 *   result written by the same compiled serializer;
 * - `callTRPCProcedure`: the exported `callTRPCProcedure` (the smallest adapter tRPC's public
 *   API allows: no caller proxy), the same serializer;
 * - `trpc-to-openapi handler`: `createOpenApiNodeHttpHandler` fed a minimal Node request and
 *   response (its own URL parse, route match, coercion, caller and `JSON.stringify`).
 *
 * Through tRPC's caller every call also runs tRPC's input and output middlewares: zod parses
 * the input (as ours does) and parses and copies the output (ours does not: the compiled
 * serializer checks what it writes), and every step of the chain wraps errors and spreads its
 * options anew. That, not the call itself, is what the public API costs.
 *
 * No database work in the figures: the statements' rows are recorded once from a real
 * PostgreSQL (an embedded cluster in a temporary directory, migrated, one account, 20 articles
 * through `createPost`) and replayed by a StatementRunner that hands back copies of them, so
 * the token match, the window arithmetic, the lane (admission/lanes.ts: one turn of the event
 * loop per call), the domain mapping, the ETag and the cursor HMAC all run for real, identically
 * in every variant. Calls run one at a time. CPU is process.cpuUsage() over `--calls` calls;
 * each round runs every variant once, in a rotated order, after one warm-up round; reported:
 * the median over rounds of µs per call, and of each variant's excess over `handler alone`
 * (its dispatch), and the dispatch as a share of a request's CPU in the service (`--request-cpu`:
 * about 120 µs per read at 64 tokens under load, about 440 µs for a lone request, from the
 * README's read figures).
 *
 *   npm run build:server && npx tsx bench/procedure-dispatch.ts [--calls 4000] [--rounds 7]
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { parseArgs } from 'node:util';
import type { Statement, StatementRunner } from '../db/statements';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '7' },
    'request-cpu': { type: 'string', default: '120,440' },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const REQUEST_CPU = values['request-cpu'].split(',').map(Number);

// The cursor HMAC's key (foundation/secrets.ts) comes from here rather than a file under DATA_DIR;
// set before the server's modules are loaded (env.ts reads the environment once).
process.env.SESSION_SECRET ??= 'procedure-dispatch-bench-secret-of-32-bytes-or-more';
process.env.LOG_LEVEL ??= 'silent';

/** Hands back copies of the rows each statement returned when recorded; any other statement is a bug here. */
function replayRunner(recorded: Map<string, Record<string, unknown>[]>): StatementRunner {
  const run = async <T>(st: Statement): Promise<T[]> => {
    const rows = recorded.get(st.name);
    if (!rows) throw new Error(`procedure-dispatch: statement ${st.name} was not recorded`);
    return rows.map((row) => ({ ...row })) as T[];
  };
  return {
    run,
    runWrite: run,
    transaction: () => Promise.reject(new Error('procedure-dispatch: no transaction is replayed')),
  } as unknown as StatementRunner;
}

/** Records the rows of every statement run through `db` (the last run of each wins). */
function recordingRunner(db: StatementRunner, recorded: Map<string, Record<string, unknown>[]>): StatementRunner {
  const run = async <T>(st: Statement, args: unknown[]): Promise<T[]> => {
    const rows = await db.run<T>(st, args);
    recorded.set(st.name, rows as Record<string, unknown>[]);
    return rows;
  };
  return { ...db, run, runWrite: run } as StatementRunner;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const { createOpenApiNodeHttpHandler } = await import('trpc-to-openapi');
  const { callTRPCProcedure } = await import('@trpc/server');
  const { provideDatabase } = await import('../db/provide-database');
  const { openStatementPool } = await import('../db/statements');
  const { appRouter } = await import('../server/api/root');
  const { procedureDefinitions, procedureParts } = await import('../server/api/procedure-internals');
  const { admitAndRead } = await import('../server/admission/admit');
  const { createAccount } = await import('../server/services/access/accounts');
  const { createPost } = await import('../server/services/posts/post-writes');
  const { ContentPool, contentPoolSettings } = await import('../server/content');
  const { matchApiRoute } = await import('../server/http/api-path');
  const { nodeHeaderView } = await import('../server/http/node-headers');
  const { compileSerializer } = await import('../server/http/json-serializers');
  const { ProcedureOutcome, runProcedure } = await import('../server/http/rest-procedures');
  const { BENCH_MARKDOWN, BENCH_TITLE } = await import('./support/article');
  type AppParts = import('../server/runtime/parts').AppParts;

  const dataDir = mkdtempSync(path.join(tmpdir(), 'publishing-bench-dispatch-'));
  const database = await provideDatabase({ dataDir: path.join(dataDir, 'pg') }, () => {});
  const pool = openStatementPool(database.url);
  const content = new ContentPool(contentPoolSettings());
  try {
    // 1. One account and 20 articles in a real database.
    const { account, secret } = await createAccount(pool.runner, 'dispatch-bench', {
      limits: { read_per_min: 100_000_000, write_per_min: 100_000_000 },
    });
    let postId = '';
    for (let i = 0; i < 20; i++) {
      const post = await createPost(
        { db: pool.runner, content, accountId: account.id },
        { title: `${BENCH_TITLE} ${i}`, markdown: BENCH_MARKDOWN, tags: ['performance', 'postgresql'] },
      );
      postId = post.id;
    }
    const authorization = `Bearer ${secret}`;
    const nodeHeaders = { authorization, host: 'localhost' };
    const headers = { get: (name: string) => (name === 'authorization' ? authorization : null) };

    const routes = [
      { name: 'GET /me', procedure: 'me.get', path: '/me', query: '' },
      { name: 'GET /posts/{id}', procedure: 'posts.get', path: `/posts/${postId}`, query: '' },
      { name: 'GET /posts?limit=20', procedure: 'posts.list', path: '/posts', query: 'limit=20' },
    ].map((r) => {
      const matched = matchApiRoute('GET', r.path);
      if (matched?.route.procedure !== r.procedure) throw new Error(`${r.path} does not match ${r.procedure}`);
      const parts = procedureParts(r.procedure, procedureDefinitions(appRouter)[r.procedure]);
      const input = parts.inputs[0];
      const voidInput = input === undefined || (input.def as { type: string }).type === 'void';
      return { ...r, matched, parts, voidInput, serialize: compileSerializer(parts.output!) };
    });
    type Route = (typeof routes)[number];

    /** The raw input as the REST mount builds it (query, then path parameters): the same work for every variant. */
    const rawInput = (route: Route): unknown => {
      if (route.voidInput) return undefined;
      const raw: Record<string, unknown> = {};
      for (const [key, value] of new URLSearchParams(route.query))
        raw[key] = /^[1-9][0-9]*$/.test(value) ? +value : value;
      return Object.assign(raw, route.matched.params);
    };

    // 2. Record each route's statements from PostgreSQL (twice: the second sees the token already touched).
    const recorded = new Map<string, Record<string, unknown>[]>();
    const recordParts = { db: recordingRunner(pool.runner, recorded) } as unknown as AppParts;
    for (let i = 0; i < 2; i++)
      for (const route of routes) {
        const outcome = new ProcedureOutcome();
        await runProcedure(recordParts, { matched: route.matched, query: route.query, headers }, outcome);
        if (outcome.error !== undefined) throw outcome.error;
      }
    const parts = { db: replayRunner(recorded) } as unknown as AppParts;

    // 3. The variants: each one call of `route`, resolving to the JSON text of its answer.
    const ctxFor = (outcome: InstanceType<typeof ProcedureOutcome>) => ({ parts, headers, res: outcome });
    // Its context as an adapter would build it: from the Node request, with our response sink.
    const openApiHandler = createOpenApiNodeHttpHandler({
      router: appRouter,
      createContext: ({
        req,
        res,
      }: {
        req: IncomingMessage;
        res: { outcome: InstanceType<typeof ProcedureOutcome> };
      }) => ({
        parts,
        headers: nodeHeaderView(req),
        res: res.outcome,
      }),
    } as never) as unknown as (req: unknown, res: unknown) => Promise<void>;

    /** The floor: the resolver with the context its middleware builds; `zodOutput` adds tRPC's output step alone. */
    const handlerAlone = async (route: Route, zodOutput: boolean) => {
      const outcome = new ProcedureOutcome();
      const cls = route.matched.route.rate;
      const ctx = {
        ...ctxFor(outcome),
        admitAndRead: async (read: Parameters<typeof admitAndRead>[3]) => {
          const { auth, window, rows } = await admitAndRead(parts.db, headers, cls, read);
          outcome.chargedTo(window);
          return { auth, rows };
        },
      };
      const input = route.parts.inputs[0]?.parse(rawInput(route));
      const resolve = route.parts.resolver as unknown as (opts: { ctx: unknown; input: unknown }) => Promise<unknown>;
      const result = await resolve({ ctx, input });
      return route.serialize(zodOutput ? route.parts.output!.parse(result) : result);
    };

    const variants: Record<string, (route: Route) => Promise<string | undefined>> = {
      'handler alone': (route) => handlerAlone(route, false),
      'handler, output parsed by zod': (route) => handlerAlone(route, true),
      'our runner': async (route) => {
        const outcome = new ProcedureOutcome();
        await runProcedure(parts, { matched: route.matched, query: route.query, headers }, outcome);
        if (outcome.error !== undefined) throw outcome.error;
        return outcome.body;
      },
      createCaller: async (route) => {
        const caller = appRouter.createCaller(ctxFor(new ProcedureOutcome())) as unknown as Record<
          string,
          Record<string, (input: unknown) => Promise<unknown>>
        >;
        const [router, name] = route.procedure.split('.') as [string, string];
        return route.serialize(await caller[router]![name]!(rawInput(route)));
      },
      callTRPCProcedure: async (route) => {
        const input = rawInput(route);
        const data = await callTRPCProcedure({
          router: appRouter,
          path: route.procedure,
          type: 'query',
          ctx: ctxFor(new ProcedureOutcome()),
          getRawInput: async () => input,
          signal: undefined,
          batchIndex: 0,
        });
        return route.serialize(data);
      },
      'trpc-to-openapi handler': (route) =>
        new Promise((resolve, reject) => {
          const url = route.query ? `${route.path}?${route.query}` : route.path;
          const req = Object.assign(new EventEmitter(), { method: 'GET', url, headers: nodeHeaders, socket: {} });
          const res = Object.assign(new EventEmitter(), {
            outcome: new ProcedureOutcome(),
            statusCode: 200,
            writableEnded: false,
            setHeader() {},
            end(body: string) {
              res.writableEnded = true;
              if (res.statusCode === 200) resolve(body);
              else reject(new Error(`trpc-to-openapi answered ${res.statusCode}: ${body}`));
            },
          });
          openApiHandler(req, res).catch(reject);
        }),
    };
    // 4. Every variant answers what our runner answers, text for text (the handler's JSON.stringify of
    // zod's copy included: the compiled serializer writes the schema's order, as zod's copy has it).
    for (const route of routes) {
      const expected = await variants['our runner']!(route);
      for (const [name, run] of Object.entries(variants)) {
        const got = await run(route);
        if (got !== expected) throw new Error(`${name} ${route.name}: answered ${got}, our runner ${expected}`);
      }
    }

    // 5. Rounds.
    const names = Object.keys(variants);
    const perCall: Record<string, number[]> = {};
    const dispatch: Record<string, number[]> = {};
    const measure = async (route: Route, name: string, calls: number) => {
      const run = variants[name]!;
      const before = process.cpuUsage();
      for (let i = 0; i < calls; i++) await run(route);
      const used = process.cpuUsage(before);
      return (used.user + used.system) / calls;
    };
    for (const route of routes) for (const name of names) await measure(route, name, CALLS); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of routes) {
        const order = names.map((_, i) => names[(i + round) % names.length]!);
        const got: Record<string, number> = {};
        for (const name of order) got[name] = await measure(route, name, CALLS);
        for (const name of names) {
          (perCall[`${route.name}|${name}`] ??= []).push(got[name]!);
          (dispatch[`${route.name}|${name}`] ??= []).push(got[name]! - got['handler alone']!);
        }
      }
    }

    // 6. Report.
    const fmt = (x: number) => x.toFixed(1);
    console.log(
      `\nCPU per call, µs (median of ${ROUNDS} rounds of ${CALLS} calls; Node ${process.version}); ` +
        `dispatch = the variant minus "handler alone"; share = dispatch / a request's CPU of ${REQUEST_CPU.join(' / ')} µs\n`,
    );
    console.log('| route | variant | µs per call | dispatch µs | share of a request |');
    console.log('| --- | --- | ---: | ---: | ---: |');
    for (const route of routes)
      for (const name of names) {
        const key = `${route.name}|${name}`;
        const d = median(dispatch[key]!);
        const share =
          name === 'handler alone' ? '' : REQUEST_CPU.map((c) => `${((d / c) * 100).toFixed(1)} %`).join(' / ');
        console.log(
          `| ${route.name} | ${name} | ${fmt(median(perCall[key]!))} | ${name === 'handler alone' ? '' : fmt(d)} | ${share} |`,
        );
      }
    console.log("\ntRPC over our runner, µs per call (median of the rounds' differences):\n");
    for (const route of routes) {
      const over = (name: string) => {
        const ours = perCall[`${route.name}|our runner`]!;
        const theirs = perCall[`${route.name}|${name}`]!;
        const d = median(theirs.map((x, i) => x - ours[i]!));
        return `${name} +${fmt(d)} (${REQUEST_CPU.map((c) => `${((d / c) * 100).toFixed(1)} %`).join(' / ')})`;
      };
      console.log(
        `- ${route.name}: ${['createCaller', 'callTRPCProcedure', 'trpc-to-openapi handler'].map(over).join('; ')}`,
      );
    }
  } finally {
    await Promise.allSettled([pool.close(), content.close()]);
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
