import client from 'prom-client';

/**
 * Prometheus metrics of the process (GET /api/metrics). One registry: prom-client is kept
 * outside Next's bundle (next.config.mjs), so the launcher's code and the code Next loads
 * share the same module and therefore the same default registry; `metric()` returns the one
 * already registered when the second copy of this module asks for it.
 *
 * Labels are bounded sets only: route templates (`/api/v1/author/posts/{id}`), methods,
 * statuses, rate classes. Never a token, an id, a slug or a query string.
 */
export const registry = client.register;

function metric<T>(name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

const httpRequests = metric(
  'http_requests_total',
  () =>
    new client.Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'] as const,
    }),
);

const httpDuration = metric(
  'http_request_duration_seconds',
  () =>
    new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to the end of the response, by route template',
      labelNames: ['method', 'route'] as const,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
);

/** The label objects of each request series, by `method status route` (a bounded set, as the labels are). */
const requestSeries = new Map<
  string,
  { counted: { method: string; route: string; status: string }; timed: { method: string; route: string } }
>();

/**
 * Counts one answered HTTP request in `http_requests_total` and `http_request_duration_seconds`.
 * The label objects of a series are made once and kept, so a request allocates none and
 * formats no status.
 */
export function countRequest(method: string, route: string, status: number, seconds: number): void {
  const key = `${method} ${status} ${route}`;
  let labels = requestSeries.get(key);
  if (labels === undefined) {
    labels = { counted: { method, route, status: String(status) }, timed: { method, route } };
    requestSeries.set(key, labels);
  }
  httpRequests.inc(labels.counted);
  httpDuration.observe(labels.timed, seconds);
}

export const rateLimitRefusals = metric(
  'rate_limit_refusals_total',
  () =>
    new client.Counter({
      name: 'rate_limit_refusals_total',
      help: 'Requests refused with 429, by rate class',
      labelNames: ['class'] as const,
    }),
);

export const conversionSeconds = metric(
  'content_conversion_seconds',
  () =>
    new client.Histogram({
      name: 'content_conversion_seconds',
      help: 'Markdown conversion time including the wait for a worker',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
);

export const cachePurges = metric(
  'cache_purges_total',
  () =>
    new client.Counter({
      name: 'cache_purges_total',
      help: 'PURGE requests to shared caches, by outcome (purged, not_cached, failed, dropped)',
      labelNames: ['result'] as const,
    }),
);

/** Gauges read when scraped: sources register a reader (the pool, the database pools). */
type GaugeReader = () => { labels?: Record<string, string>; value: number }[];

export function observeGauge(name: string, help: string, labelNames: string[], read: GaugeReader): void {
  const existing = registry.getSingleMetric(name);
  if (existing) registry.removeSingleMetric(name);
  new client.Gauge({
    name,
    help,
    labelNames,
    collect() {
      this.reset();
      for (const { labels, value } of read()) {
        if (labels) this.set(labels, value);
        else this.set(value);
      }
    },
  });
}

export const readerBeacons = metric(
  'reader_beacons_total',
  () =>
    new client.Counter({
      name: 'reader_beacons_total',
      help: 'Reader beacons received, by kind and outcome (pending: to be flushed; duplicate; ignored: not a reader; dropped)',
      labelNames: ['kind', 'outcome'] as const,
    }),
);

export const readerFlushes = metric(
  'reader_flushes_total',
  () =>
    new client.Counter({
      name: 'reader_flushes_total',
      help: 'Flushes of reader counts to the database (one write statement each), by result',
      labelNames: ['result'] as const,
    }),
);
