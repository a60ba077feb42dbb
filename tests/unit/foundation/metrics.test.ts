/**
 * Request metrics (server/foundation/metrics.ts) are counted in plain numbers and handed to the registry
 * when scraped. What a scrape shows must be exactly what prom-client's own Counter and
 * Histogram show for the same requests.
 */
import fc from 'fast-check';
import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { countRequest, registry } from '../../../server/foundation/metrics';

const BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const request = fc.record({
  method: fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'DELETE'),
  route: fc.constantFrom('/api/v1/author/me', '/api/v1/author/posts/{id}', '/api/health', '/console/*'),
  status: fc.constantFrom(200, 201, 204, 304, 400, 404, 429, 500, 503),
  seconds: fc.oneof(
    fc.double({ min: 0, max: 60, noNaN: true }),
    fc.constantFrom(...BUCKETS),
    fc.constantFrom(...BUCKETS).map((b) => b + Number.EPSILON * 8),
  ),
});

/** The lines of the request families, sorted (series order is not part of the format). */
async function requestLines(source: client.Registry): Promise<string[]> {
  return (await source.metrics())
    .split('\n')
    .filter((line) => /^(# (HELP|TYPE) )?http_request/.test(line))
    .sort();
}

describe('request metrics', () => {
  it('show what prom-client Counter and Histogram show for the same requests', async () => {
    const reference = new client.Registry();
    const counter = new client.Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [reference],
    });
    const histogram = new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to the end of the response, by route template',
      labelNames: ['method', 'route'],
      buckets: BUCKETS,
      registers: [reference],
    });
    const before = await requestLines(registry);
    expect(before.filter((l) => !l.startsWith('#'))).toEqual([]);
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 40 }), async (requests) => {
        for (const { method, route, status, seconds } of requests) {
          countRequest(method, route, status, seconds);
          counter.inc({ method, route, status: String(status) });
          histogram.observe({ method, route }, seconds);
        }
        expect(await requestLines(registry)).toEqual(await requestLines(reference));
      }),
    );
  });
});
