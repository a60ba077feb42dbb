import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ONLY, metricsOf } from '../support/service';
import { createPost, newAccount } from '../support/api';
import { startExtraService, type ExtraService } from './media-helpers';

/**
 * What every request leaves behind, on an instance of its own (so no other test's requests
 * count): one JSON log line with fixed fields, written even when the process is stopped right
 * after (lines are written in batches), and exact counts in `http_requests_total` and
 * `http_request_duration_seconds`.
 */

let extra: ExtraService;
let token: string;
beforeAll(async () => {
  ({ token } = await newAccount());
  extra = await startExtraService({ ...API_ONLY, LOG_LEVEL: 'info' });
});
afterAll(async () => {
  await extra?.stop();
});

async function metrics(): Promise<string> {
  const res = await metricsOf(`${extra.service.baseUrl}`);
  expect(res.status).toBe(200);
  return res.text();
}

/** The value of one sample line (`name{labels} value`), 0 when the series does not exist yet. */
function sample(text: string, line: string): number {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.slice(line.length + 1));
}

describe('request metrics', () => {
  it('count each answered request once, by method, route template and status, with its duration', async () => {
    const post = await createPost(token);
    const counted = (status: number) =>
      `http_requests_total{method="GET",route="/api/v1/author/posts/{id}",status="${status}"}`;
    const timed = (suffix: string, le?: string) =>
      `http_request_duration_seconds_${suffix}{${le ? `le="${le}",` : ''}method="GET",route="/api/v1/author/posts/{id}"}`;
    const before = await metrics();
    for (let i = 0; i < 3; i++) expect((await extra.call('GET', `/posts/${post.id}`, { token })).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await extra.call('GET', '/posts/00000000-0000-4000-8000-000000000000', { token })).status).toBe(404);
    const after = await metrics();
    expect(sample(after, counted(200)) - sample(before, counted(200))).toBe(3);
    expect(sample(after, counted(404)) - sample(before, counted(404))).toBe(2);
    expect(sample(after, timed('count')) - sample(before, timed('count'))).toBe(5);
    expect(sample(after, timed('bucket', '+Inf')) - sample(before, timed('bucket', '+Inf'))).toBe(5);
    expect(sample(after, timed('sum'))).toBeGreaterThan(sample(before, timed('sum')));
    // Buckets are cumulative: each holds at least what the one below holds.
    const buckets = [
      ...after.matchAll(
        /^http_request_duration_seconds_bucket\{le="([^"]+)",method="GET",route="\/api\/v1\/author\/posts\/\{id\}"\} (\d+)$/gm,
      ),
    ].map((m) => Number(m[2]));
    expect(buckets.length).toBeGreaterThan(2);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]).toBeGreaterThanOrEqual(buckets[i - 1]!);
  });
});

describe('request log', () => {
  it('writes one line per request with its fields, ids masked, and loses none when stopped at once', async () => {
    const id = '00000000-0000-4000-8000-00000000abcd';
    const sent = ['log-check.1', 'log-check.2', 'log-check.3'];
    expect((await extra.call('GET', '/me', { token, headers: { 'x-request-id': sent[0]! } })).status).toBe(200);
    expect((await extra.call('GET', `/posts/${id}`, { token, headers: { 'x-request-id': sent[1]! } })).status).toBe(
      404,
    );
    expect((await extra.call('GET', '/me', { token, headers: { 'x-request-id': sent[2]! } })).status).toBe(200);
    // Stopped right away: the lines may still be waiting for their batch to be written.
    expect(await extra.stop()).toBe(0);
    const lines = extra.service.logs
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const mine = lines.filter((l) => sent.includes(l.request_id as string));
    expect(mine.map((l) => Object.keys(l))).toEqual(
      sent.map(() => ['time', 'level', 'msg', 'method', 'route', 'status', 'duration_ms', 'request_id']),
    );
    expect(mine.map(({ method, route, status, request_id }) => ({ method, route, status, request_id }))).toEqual([
      { method: 'GET', route: '/api/v1/author/me', status: 200, request_id: sent[0] },
      { method: 'GET', route: '/api/v1/author/posts/{id}', status: 404, request_id: sent[1] },
      { method: 'GET', route: '/api/v1/author/me', status: 200, request_id: sent[2] },
    ]);
    for (const line of mine) {
      expect(line).toMatchObject({ level: 'info', msg: 'request' });
      expect(new Date(line.time as string).toISOString()).toBe(line.time);
      expect(typeof line.duration_ms).toBe('number');
      expect(line.duration_ms as number).toBeGreaterThanOrEqual(0);
    }
    expect(extra.service.logs.join('')).not.toContain(id);
    // Written before the process said it stopped.
    const stopped = lines.findIndex((l) => l.msg === 'stopped');
    expect(stopped).toBeGreaterThan(lines.indexOf(mine[2]!));
  });
});
