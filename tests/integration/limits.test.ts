import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newAccount, serviceEnv } from '../support/api';
import { API_ONLY, startService, type RunningService } from '../support/service';

/** Rate limits (docs/api.md): fixed windows, exact under concurrency, across instances, with headers. */
describe('rate limits', () => {
  let second: RunningService;

  beforeAll(async () => {
    // A second app instance on the same database, as behind a load balancer.
    second = await startService({ ...API_ONLY, DATA_DIR: serviceEnv().DATA_DIR });
  });
  afterAll(async () => {
    await second?.stop();
  });

  it('100 parallel requests across two instances against a limit of 30 give exactly 30 successes', async () => {
    const { token } = await newAccount({ limits: { read_per_min: 30 } });
    // Stay inside one fixed window: start right after a boundary if the current one is nearly over.
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 15) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 500));
    const results = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const base = i % 2 === 0 ? second.baseUrl : undefined;
        const res = base
          ? await fetch(`${base}/api/v1/author/me`, { headers: { authorization: `Bearer ${token}` } }).then(
              async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }),
            )
          : await api('GET', '/me', { token });
        return { ...res, receivedAt: Date.now() / 1000 };
      }),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(30);
    expect(limited).toHaveLength(70);
    for (const r of limited) {
      expect(r.body).toEqual({ error: expect.any(String), code: 'rate_limited' });
      expect(r.headers.get('ratelimit-limit')).toBe('30');
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
      const reset = Number(r.headers.get('ratelimit-reset'));
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(reset % 60).toBe(0);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Retry-After is Reset − now, rounded up, as of the moment the answer was made.
      expect(Math.abs(reset - r.receivedAt - retryAfter)).toBeLessThanOrEqual(2);
    }
    for (const r of ok) {
      expect(r.headers.get('ratelimit-limit')).toBe('30');
      expect(Number(r.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(r.headers.get('retry-after')).toBeNull();
    }
    const remaining = ok.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('classes are counted separately and per account; publish allows 1 per minute by default', async () => {
    const account = await newAccount({ limits: { publish_per_min: 1 } });
    const other = await newAccount({ limits: { publish_per_min: 1 } });
    const a = await api('POST', '/posts', { token: account.token, json: { title: 'a', markdown: 'a' } });
    const b = await api('POST', '/posts', { token: account.token, json: { title: 'b', markdown: 'b' } });
    const c = await api('POST', '/posts', { token: other.token, json: { title: 'c', markdown: 'c' } });
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 5) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 500));
    const first = await api('POST', `/posts/${a.body.id}/publish`, { token: account.token });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('1');
    expect(first.headers.get('ratelimit-remaining')).toBe('0');
    const secondPublish = await api('POST', `/posts/${b.body.id}/publish`, { token: account.token });
    expect(secondPublish.status).toBe(429);
    expect(secondPublish.body.code).toBe('rate_limited');
    expect(secondPublish.headers.get('retry-after')).toMatch(/^\d+$/);
    // Writes and reads still pass; another account's publish is unaffected.
    expect((await api('GET', '/me', { token: account.token })).status).toBe(200);
    expect((await api('POST', `/posts/${c.body.id}/publish`, { token: other.token })).status).toBe(200);
  });
});
