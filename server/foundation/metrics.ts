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

/**
 * Every answered HTTP request is counted in `http_requests_total` (by method, route template and
 * status) and `http_request_duration_seconds` (a histogram by method and route template).
 *
 * Both are kept here as plain numbers per series and handed to the registry when it is scraped:
 * prom-client's `inc` and `observe` build a key string from the labels, validate them and index
 * bucket counts by the bound's text on every call, which a profile of the cheapest reads put at
 * a few microseconds per request. A request now finds its series through two Map lookups by
 * strings that are the same objects every time (route templates, Node's method names) and adds
 * to numbers. The text served is what prom-client wrote for the same counts: the counter is a
 * prom-client Counter filled at scrape time; the histogram answers the registry in the form
 * prom-client's Histogram does (buckets cumulative, `le` first, then `+Inf`, `_sum`, `_count`).
 */
const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface RequestSeries {
  method: string;
  route: string;
  /** Requests by status. */
  statuses: Map<number, number>;
  /** Durations per bucket, not cumulative: `[i]` counts those ≤ DURATION_BUCKETS[i] and above the bound before; the last, those above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

class RequestMetrics {
  /** Route template → method → series. */
  readonly series = new Map<string, Map<string, RequestSeries>>();

  count(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (byMethod === undefined) this.series.set(route, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (series === undefined) {
      series = {
        method,
        route,
        statuses: new Map(),
        buckets: new Array(DURATION_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byMethod.set(method, series);
    }
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    series.buckets[i]!++;
    series.sum += seconds;
    series.count++;
  }

  *all(): Generator<RequestSeries> {
    for (const byMethod of this.series.values()) yield* byMethod.values();
  }
}

/** `http_request_duration_seconds` as the registry reads a metric (`get()`), from RequestMetrics. */
class DurationHistogram {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'Time from request to the end of the response, by route template';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly requests = new RequestMetrics();

  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.requests.all()) {
      const labels = { method: s.method, route: s.route };
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.requests.series.clear();
  }
}

const httpDuration = metric('http_request_duration_seconds', () => {
  const histogram = new DurationHistogram();
  // The registry reads any object with `get()`; its type names prom-client's own classes.
  registry.registerMetric(histogram as unknown as client.Histogram);
  return histogram;
});

metric(
  'http_requests_total',
  () =>
    new client.Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      collect() {
        this.reset();
        for (const s of httpDuration.requests.all())
          for (const [status, n] of s.statuses)
            this.inc({ method: s.method, route: s.route, status: String(status) }, n);
      },
    }),
);

/** Counts one answered HTTP request (server/http/request-listener.ts). */
export function countRequest(method: string, route: string, status: number, seconds: number): void {
  httpDuration.requests.count(method, route, status, seconds);
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

/** How much of the Markdown converted was parsed, and how much taken from parsed blocks (block-parse.ts). */
export const parsedCharacters = metric(
  'content_parsed_characters_total',
  () =>
    new client.Counter({
      name: 'content_parsed_characters_total',
      help: 'Markdown characters converted, by source: parsed, or reused from the blocks the account parsed recently',
      labelNames: ['source'] as const,
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
      help: 'Reader beacons received, by kind and outcome (pending: to be flushed; duplicate; ignored: not a reader; limited: past the per-address bound; dropped: the tally is full)',
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

/**
 * Admitted reads per statement (admission/lanes.ts): `_count` is statements sent, `_sum` requests
 * admitted; a mean near 1 under load means requests do not meet (one caller at a time).
 */
export const admissionBatches = metric(
  'admission_batch_size',
  () =>
    new client.Histogram({
      name: 'admission_batch_size',
      help: 'Requests admitted by one admission statement (token match, window charge and read)',
      buckets: [1, 2, 4, 8, 16, 32],
    }),
);
