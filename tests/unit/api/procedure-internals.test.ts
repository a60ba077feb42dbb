import { TRPCError, initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  TrpcInternalsChanged,
  procedureCall,
  procedureDefinitions,
  procedureMeta,
  procedureParts,
} from '../../../server/api/procedure-internals';
import { appRouter } from '../../../server/api/root';
import type { ApiMeta } from '../../../server/api/route-meta';

// The installed @trpc/server, taken apart the way the REST mount takes it apart: an upgrade that
// moves what procedure-internals.ts reads fails here, by name, before any server starts.
const t = initTRPC.context<{ who?: string }>().meta<ApiMeta>().create();
const first = t.middleware(({ next }) => next({ ctx: { who: 'first' } }));

/** A procedure of the installed tRPC with every kind of step: two `.use()`, an input, an output. */
const full = () =>
  t.procedure
    .use(first)
    .use(async ({ next }) => next())
    .input(z.object({ n: z.number() }))
    .output(z.object({ n: z.number() }))
    .query(({ input }) => ({ n: input.n + 1 }));
const defOf = (procedure: unknown) => (procedure as { _def: Record<string, unknown> })._def;

/** `run` throws TrpcInternalsChanged, naming `what` and this adapter's file. */
function failsNaming(run: () => unknown, what: RegExp) {
  let thrown: unknown;
  try {
    run();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, `expected TrpcInternalsChanged naming ${what}`).toBeInstanceOf(TrpcInternalsChanged);
  expect((thrown as Error).message).toMatch(what);
  expect((thrown as Error).message).toMatch(/server\/api\/procedure-internals\.ts/);
}

describe('procedure-internals: what the REST mount reads of tRPC', () => {
  it('takes every procedure of the app router apart: type, route meta, its middleware, its resolver', () => {
    const entries = Object.entries(procedureDefinitions(appRouter));
    expect(entries.length).toBeGreaterThan(5);
    for (const [path, procedure] of entries) {
      const parts = procedureParts(path, procedure);
      expect(['query', 'mutation']).toContain(parts.type);
      expect(parts.meta?.route?.path).toMatch(/^\/(me|posts|media)/);
      expect(procedureMeta(path, procedure)).toBe(parts.meta);
      expect(parts.middlewares).toHaveLength(1);
      expect(parts.middlewaresAfterInput).toBe(0);
      expect(parts.errorFormatters).toBe(0);
      expect(typeof parts.resolver).toBe('function');
      expect(parts.output).toBeDefined();
      expect(typeof procedureCall(parts)).toBe('function');
    }
  });

  it('finds the .use() middlewares of a procedure built by the installed tRPC, in order, without its own steps', async () => {
    const parts = procedureParts('p', full());
    expect(parts.type).toBe('query');
    expect(parts.middlewares).toHaveLength(2);
    expect(parts.middlewares.every((m) => typeof m === 'function')).toBe(true);
    expect(parts.middlewaresAfterInput).toBe(0);
    expect(parts.inputs).toHaveLength(1);
    expect(await parts.resolver({ ctx: {} as never, input: { n: 1 } } as never)).toEqual({ n: 2 });
    // The first middleware is the function passed to .use(): it hands on the context it was given.
    let handed: unknown;
    await parts.middlewares[0]!({
      ctx: {},
      meta: undefined,
      path: 'p',
      type: 'query',
      input: undefined,
      getRawInput: async () => undefined,
      signal: undefined,
      batchIndex: 0,
      next: async (opts) => {
        handed = opts?.ctx;
        return { ok: true, data: undefined };
      },
    });
    expect(handed).toEqual({ who: 'first' });
  });

  it('counts a middleware added after .input() and an .errors() formatter, and will not run either', () => {
    const late = procedureParts(
      'late',
      t.procedure
        .input(z.object({}))
        .use(first)
        .mutation(() => null),
    );
    expect(late.type).toBe('mutation');
    expect(late.middlewaresAfterInput).toBe(1);
    expect(() => procedureCall(late)).toThrow(/procedure late: a middleware after \.input\(\) would see no input/);
    const formatted = procedureParts(
      'formatted',
      t.procedure
        .use(first)
        .errors(({ shape }) => shape)
        .query(() => 1),
    );
    expect(formatted.errorFormatters).toBe(1);
    expect(formatted.middlewares).toHaveLength(1);
    expect(() => procedureCall(formatted)).toThrow(/procedure formatted: \.errors\(\) formatters/);
  });

  it('names every assumption it makes when a tRPC upgrade breaks it', () => {
    const real = full();
    const def = defOf(real);
    const steps = def.middlewares as ((...args: unknown[]) => unknown)[];
    const [use1, use2, inputStep, outputStep, resolveStep] = steps;
    // The installed tRPC builds the chain this test breaks: .use, .use, input, output, resolve.
    expect(steps.map((s) => (s as { _type?: string })._type ?? s.name)).toEqual([
      expect.any(String),
      expect.any(String),
      'input',
      'output',
      'resolveMiddleware',
    ]);
    const broken = (changes: Record<string, unknown>) => ({ _def: { ...def, ...changes } });
    const parts = (changes: Record<string, unknown>) => () => procedureParts('x', broken(changes));
    const marked = (type: string) => Object.assign(async () => undefined, { _type: type });
    const renamed = async function resolveStepOfAnotherName() {};

    failsNaming(() => procedureDefinitions({}), /router\._def\.procedures is not an object/);
    failsNaming(() => procedureDefinitions({ _def: { record: {} } }), /router\._def\.procedures is not an object/);
    failsNaming(
      () => procedureDefinitions({ _def: { procedures: {}, lazy: { posts: {} } } }),
      /router\._def\.lazy holds routers not loaded yet \(posts\)/,
    );
    failsNaming(() => procedureParts('x', { nothing: true }), /procedure x has no _def/);
    failsNaming(() => procedureMeta('x', broken({ meta: 'GET /x' })), /procedure x: _def\.meta is not an object/);
    failsNaming(parts({ type: 'call' }), /procedure x: _def\.type is call/);
    failsNaming(parts({ inputs: undefined }), /_def\.inputs is not an array/);
    failsNaming(parts({ inputs: [{ parse: () => 1 }] }), /_def\.inputs holds something that is not a schema/);
    failsNaming(parts({ output: 'json' }), /_def\.output is not a schema/);
    failsNaming(parts({ resolver: undefined }), /_def\.resolver is not a function/);
    failsNaming(parts({ middlewares: 'many' }), /_def\.middlewares is not a non-empty array/);
    failsNaming(parts({ middlewares: [] }), /_def\.middlewares is not a non-empty array/);
    failsNaming(
      parts({ middlewares: [use1, {}, resolveStep] }),
      /_def\.middlewares holds something that is not a function/,
    );
    // A new kind of own step would otherwise be run as one of ours, or skipped.
    failsNaming(
      parts({ middlewares: [use1, marked('tracing'), inputStep, outputStep, resolveStep] }),
      /_def\.middlewares has a step marked _type "tracing"/,
    );
    // The marks no longer say which step parses the input, or the output.
    failsNaming(parts({ middlewares: [use1, use2, outputStep, resolveStep] }), /0 "input" steps for 1 _def\.inputs/);
    failsNaming(parts({ middlewares: [use1, use2, inputStep, resolveStep] }), /0 "output" steps for one _def\.output/);
    failsNaming(parts({ output: undefined }), /1 "output" steps for no _def\.output/);
    // The resolver's position: the resolve step is the last, and the only one.
    failsNaming(
      parts({ middlewares: [use1, use2, inputStep, outputStep, resolveStep, async () => undefined] }),
      /does not end in the resolve step \(resolveMiddleware found at position 4 of 6\)/,
    );
    failsNaming(
      parts({ middlewares: [resolveStep, use1, use2, inputStep, outputStep] }),
      /does not end in the resolve step \(resolveMiddleware found at position 0 of 5\)/,
    );
    failsNaming(
      parts({ middlewares: [use1, use2, inputStep, outputStep, renamed] }),
      /does not end in the resolve step \(resolveMiddleware found at no position of 5\)/,
    );
    failsNaming(
      parts({ middlewares: [use1, use2, inputStep, outputStep, resolveStep, resolveStep] }),
      /resolveMiddleware found at position 4, 5 of 6/,
    );
    // The real procedure, unbroken, passes every check.
    expect(() => procedureParts('x', real)).not.toThrow();
  });
});

describe('procedureCall runs a procedure as tRPC runs it', () => {
  /**
   * Two middlewares that log around `next`, merge context and look at what `next` returned; a
   * resolver that logs what it got. Run through tRPC's own `createCaller` and through
   * `procedureCall`, the logs and results must be the same.
   */
  function traced(fail?: Error) {
    const log: unknown[] = [];
    const procedure = t.procedure
      .meta({ route: { method: 'GET', path: '/traced', success: 200, rate: 'read', errors: [] } })
      .use(async ({ ctx, meta, path, type, next }) => {
        log.push(['outer before', ctx, meta?.route?.path, path, type]);
        const result = await next({ ctx: { who: 'outer', extra: 1 } as { who: string } });
        log.push(['outer after', result.ok]);
        return result;
      })
      .use(async ({ ctx, next }) => {
        log.push(['inner before', ctx]);
        const result = await next({ ctx: { who: 'inner' } });
        log.push(['inner after', result.ok, result.ok ? undefined : String(result.error)]);
        return result;
      })
      .input(z.object({ n: z.number() }))
      .output(z.object({ n: z.number(), who: z.string() }))
      .query(({ ctx, input, path }) => {
        log.push(['resolver', ctx, input, path]);
        if (fail) throw fail;
        return { n: input.n * 2, who: ctx.who ?? '' };
      });
    return { log, procedure };
  }

  it('calls the middlewares in order, merges their context and hands the resolver the parsed input', async () => {
    const viaTrpc = traced();
    const caller = t.createCallerFactory(t.router({ traced: viaTrpc.procedure }))({ who: 'request' });
    const trpcResult = await caller.traced({ n: 21 });

    const ours = traced();
    const parts = procedureParts('traced', ours.procedure);
    const ourResult = await procedureCall(parts)({ who: 'request' }, async () => parts.inputs[0]!.parse({ n: 21 }));

    expect(ourResult).toEqual(trpcResult);
    expect(ours.log).toEqual(viaTrpc.log);
    expect(ours.log).toContainEqual(['resolver', { who: 'inner', extra: 1 }, { n: 21 }, 'traced']);
  });

  it('hands a failure back through next() as { ok: false }, then to the caller (tRPC wraps it in a TRPCError)', async () => {
    const failure = new Error('the handler failed');
    const viaTrpc = traced(failure);
    const caller = t.createCallerFactory(t.router({ traced: viaTrpc.procedure }))({});
    const trpcError = await caller.traced({ n: 1 }).catch((err: unknown) => err);

    const ours = traced(failure);
    const parts = procedureParts('traced', ours.procedure);
    const ourError = await procedureCall(parts)({}, async () => parts.inputs[0]!.parse({ n: 1 })).catch(
      (err: unknown) => err,
    );

    // The one difference, on purpose: the REST mount gets the error as thrown.
    expect(ourError).toBe(failure);
    expect(trpcError).toBeInstanceOf(TRPCError);
    expect((trpcError as TRPCError).cause).toBe(failure);
    // What the middlewares saw is the same, but for tRPC's wrapping of the error.
    const unwrap = (log: unknown[]) =>
      JSON.stringify(log).replace('TRPCError: the handler failed', 'Error: the handler failed');
    expect(unwrap(ours.log)).toBe(unwrap(viaTrpc.log));
  });
});
