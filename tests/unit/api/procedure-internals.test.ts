import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  TrpcInternalsChanged,
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
      expect(typeof parts.resolver).toBe('function');
      expect(parts.output).toBeDefined();
    }
  });

  it('finds the .use() middlewares of a procedure built by the installed tRPC, in order, without its own steps', async () => {
    const procedure = t.procedure
      .use(first)
      .use(async ({ next }) => next())
      .input(z.object({ n: z.number() }))
      .output(z.object({ n: z.number() }))
      .query(({ input }) => ({ n: input.n + 1 }));
    const parts = procedureParts('p', procedure);
    expect(parts.type).toBe('query');
    expect(parts.middlewares).toHaveLength(2);
    expect(parts.middlewares.every((m) => typeof m === 'function')).toBe(true);
    expect(parts.middlewaresAfterInput).toBe(0);
    expect(parts.inputs).toHaveLength(1);
    expect(await parts.resolver({ ctx: {} as never, input: { n: 1 } })).toEqual({ n: 2 });
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
      next: async (opts) => {
        handed = opts?.ctx;
        return { ok: true };
      },
    });
    expect(handed).toEqual({ who: 'first' });
  });

  it('counts a middleware added after .input() (it would see the parsed input)', () => {
    const procedure = t.procedure
      .input(z.object({}))
      .use(first)
      .mutation(() => null);
    const parts = procedureParts('late', procedure);
    expect(parts.type).toBe('mutation');
    expect(parts.middlewaresAfterInput).toBe(1);
  });

  it('fails with a message naming the field and this adapter when the shapes it reads change', () => {
    const fails = (run: () => unknown, field: RegExp) => {
      expect(run).toThrow(TrpcInternalsChanged);
      expect(run).toThrow(field);
      expect(run).toThrow(/server\/api\/procedure-internals\.ts/);
    };
    fails(() => procedureDefinitions({}), /router\._def\.procedures/);
    fails(() => procedureDefinitions({ _def: { record: {} } }), /router\._def\.procedures/);
    const real = t.procedure.query(() => 1);
    const def = (real as unknown as { _def: Record<string, unknown> })._def;
    fails(() => procedureParts('x', { nothing: true }), /procedure x has no _def/);
    fails(() => procedureParts('x', { _def: { ...def, type: undefined } }), /_def\.type/);
    fails(() => procedureParts('x', { _def: { ...def, inputs: undefined } }), /_def\.inputs/);
    fails(() => procedureParts('x', { _def: { ...def, middlewares: 'many' } }), /_def\.middlewares/);
    fails(() => procedureParts('x', { _def: { ...def, middlewares: [] } }), /_def\.middlewares/);
    fails(() => procedureParts('x', { _def: { ...def, resolver: undefined } }), /_def\.resolver/);
  });
});
