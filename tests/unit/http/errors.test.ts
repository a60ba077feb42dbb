import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeZodError, httpFailure } from '../../../server/http/errors';
import {
  conflict,
  DomainError,
  invalid,
  notFound,
  notModified,
  rateLimited,
  stale,
  unauthenticated,
  unavailable,
  type ErrorKind,
} from '../../../server/foundation/errors';
import { ContentRejectedError, ConversionBusyError } from '../../../server/content';
import { ImageError } from '../../../server/media/image';
import { StorageUnavailableError } from '../../../server/media/storage';
import { DailyQuotaExceededError } from '../../../server/services/media/media-storage';

/**
 * httpFailure: the one place a failure becomes a status, a body and headers. The domain throws
 * kinds; the contract's statuses and codes are decided here, from the error object.
 */
const window = { limit: 30, remaining: 0, reset: 1_790_000_100, retryAfter: 13 };

describe('httpFailure', () => {
  it.each<[string, DomainError, number, string | undefined]>([
    ['invalid', invalid('title: must not be empty'), 400, undefined],
    ['unauthenticated', unauthenticated(), 401, 'unauthorized'],
    ['not_found', notFound(), 404, 'not_found'],
    ['conflict', conflict('slug: taken'), 409, undefined],
    ['stale', stale('If-Match: changed'), 412, 'precondition_failed'],
    ['unsupported', new ImageError('animated', 'file: animated images are not accepted'), 422, 'animated_image'],
    ['rate_limited', rateLimited('write limit reached', window), 429, 'rate_limited'],
    ['unavailable', unavailable(), 503, 'service_unavailable'],
  ])('maps %s to its status and code, with the message as the error', (_kind, error, status, code) => {
    const failure = httpFailure(error);
    expect(failure.status).toBe(status);
    expect(failure.body).toEqual(code ? { error: error.message, code } : { error: error.message });
  });

  it('omits the code exactly for 400 and 409, whatever the message (docs/api.md "Errors")', () => {
    const kinds: ErrorKind[] = [
      'invalid',
      'unauthenticated',
      'not_found',
      'conflict',
      'stale',
      'unsupported',
      'unavailable',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.string({ minLength: 1 }), (kind, message) => {
        const failure = httpFailure(new DomainError(kind, message));
        expect(failure.body?.error).toBe(message);
        expect(failure.body?.code === undefined).toBe(failure.status === 400 || failure.status === 409);
      }),
    );
  });

  it('answers not_modified with 304 and no body', () => {
    expect(httpFailure(notModified())).toEqual({ status: 304, headers: {} });
  });

  it('gives a rate_limited failure the headers of the limit it hit, Retry-After included', () => {
    expect(httpFailure(rateLimited('write limit reached', window)).headers).toEqual({
      'RateLimit-Limit': '30',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1790000100',
      'Retry-After': '13',
    });
  });

  it('describes the daily media quota in the rate-limit headers, not the minute window', () => {
    const reset = Math.floor(Date.now() / 1000) + 3600;
    const failure = httpFailure(new DailyQuotaExceededError(1000, 900, reset));
    expect(failure.status).toBe(429);
    expect(failure.headers).toMatchObject({
      'RateLimit-Limit': '1000',
      'RateLimit-Remaining': '100',
      'RateLimit-Reset': String(reset),
    });
    expect(Number(failure.headers['Retry-After'])).toBeGreaterThan(3500);
  });

  it('knows the failures of content, media storage and the database by kind', () => {
    expect(httpFailure(new ContentRejectedError('nesting too deep'))).toMatchObject({
      status: 400,
      body: { error: 'markdown: nesting too deep' },
    });
    expect(httpFailure(new ConversionBusyError()).status).toBe(503);
    const storage = httpFailure(new StorageUnavailableError('s3 put failed: EACCES /secret/path'));
    expect(storage).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    expect(storage.body?.error).not.toMatch(/secret|EACCES/);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(httpFailure(refused)).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
  });

  it('turns an input the schema refuses into a 400 that names the field, at most three of them', () => {
    const schema = z.object({ title: z.string().min(1, 'must not be empty'), tags: z.array(z.string()) });
    const parsed = schema.safeParse({ title: '', tags: [1] });
    expect(parsed.success).toBe(false);
    const failure = httpFailure(invalid(describeZodError(parsed.error!)));
    expect(failure.status).toBe(400);
    expect(failure.body).toEqual({ error: expect.stringMatching(/^title: must not be empty; tags\.0: /) });
    const many = z.object(Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, z.string()]))).safeParse({});
    expect(describeZodError(many.error!).split('; ')).toHaveLength(3);
  });

  it('answers 500 for a ZodError that is not an input refusal (our own bug), saying nothing of it', () => {
    const broken = z.object({ count: z.number() }).safeParse({ count: 'many' });
    const failure = httpFailure(broken.error);
    expect(failure.status).toBe(500);
    expect(failure.body?.error).not.toMatch(/count|many|expected/i);
  });

  it('answers 500 for anything it does not know, saying nothing of it', () => {
    expect(httpFailure(new Error('boom at /srv/secret'))).toEqual({
      status: 500,
      body: { error: 'Internal server error' },
      headers: {},
    });
    expect(httpFailure('a string').status).toBe(500);
  });
});
