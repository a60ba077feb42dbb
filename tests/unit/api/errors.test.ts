import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toApiError } from '../../../server/api/errors';
import { ApiError } from '../../../server/errors';

/**
 * toApiError: the one place a failure becomes a status. A schema failure of the caller's input
 * is their 400 and names the field; a response that fails its own output schema is our bug and
 * must be a 500, never a 400 that blames the caller.
 */
const t = initTRPC.create();
const router = t.router({
  echo: t.procedure
    .input(z.object({ title: z.string().min(1, 'must not be empty') }))
    .output(z.object({ title: z.string() }))
    .query(({ input }) => ({ title: input.title })),
  broken: t.procedure
    .output(z.object({ count: z.number() }))
    .query(() => ({ count: 'many' }) as unknown as { count: number }),
  refusing: t.procedure.query(() => {
    throw new ApiError(409, 'slug: already used by another of your articles');
  }),
});
const caller = t.createCallerFactory(router)({});

async function failureOf(call: () => Promise<unknown>): Promise<ApiError> {
  try {
    await call();
  } catch (err) {
    return toApiError(err);
  }
  throw new Error('the call did not fail');
}

describe('toApiError', () => {
  it('turns an input validation failure into a 400 that names the field', async () => {
    const api = await failureOf(() => caller.echo({ title: '' }));
    expect(api.status).toBe(400);
    expect(api.toBody()).toEqual({ error: expect.stringContaining('title: must not be empty') });
  });

  it('turns an output validation failure into a 500 without details', async () => {
    const api = await failureOf(() => caller.broken());
    expect(api.status).toBe(500);
    expect(api.toBody().error).not.toMatch(/count|many|expected/i);
  });

  it('passes a domain ApiError through with its status and message', async () => {
    const api = await failureOf(() => caller.refusing());
    expect(api.status).toBe(409);
    expect(api.toBody()).toEqual({ error: 'slug: already used by another of your articles' });
  });

  it('answers 500 for anything it does not know', () => {
    expect(toApiError(new Error('boom')).status).toBe(500);
    expect(toApiError('a string').status).toBe(500);
  });
});
