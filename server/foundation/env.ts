import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

/**
 * The process environment, validated once (the README's table lists every variable).
 * Everything else imports `env` from here instead of reading process.env,
 * so a typo or a bad value fails at start with a readable message.
 */
const emptyAsUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const EnvSchema = z.object({
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  /** Bind address: every interface by default; `127.0.0.1` keeps the service on this machine. */
  HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  /**
   * The origin readers reach the public pages at (`https://blog.example`), for their absolute
   * canonical, og:url and og:image URLs. Never taken from a request header (a forged
   * X-Forwarded-Host would be cached for every reader); unset, those URLs are relative or left out.
   */
  PUBLIC_ORIGIN: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .transform((text, ctx) => {
        const origin = originOnly(text);
        if (origin === undefined)
          ctx.addIssue({ code: 'custom', message: 'must be an http(s) origin only, such as https://blog.example' });
        return origin ?? z.NEVER;
      })
      .optional(),
  ),
  /** Open connections the HTTP server accepts at once; more are closed as they arrive. */
  MAX_CONNECTIONS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000_000).default(4096)),
  /**
   * Open connections from one client address (IPv6: one /64) at once; more are closed as they
   * arrive. TRUSTED_PROXIES addresses are exempt: behind a proxy every connection comes from it.
   */
  MAX_CONNECTIONS_PER_ADDRESS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(1_000_000).default(256),
  ),
  /** Longest time (ms) for a request's headers, from the connection or the request's first byte; past it: 408. */
  HEADERS_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(500).max(120_000).default(15_000)),
  /**
   * Longest time (ms) for a whole request, headers and body (Node's `requestTimeout`; past it:
   * 408); an upload read under its rate floor is exempt (UPLOAD_MIN_BYTES_PER_SECOND).
   */
  REQUEST_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(500).max(3_600_000).default(120_000)),
  /**
   * When set, GET /api/metrics answers `Authorization: Bearer <METRICS_TOKEN>` on the service's
   * listener; unset, /api/metrics there is 404 (see METRICS_PORT).
   */
  METRICS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16).optional()),
  /** When set, a listener of its own on 127.0.0.1 serves GET /metrics without a token (this machine only). */
  METRICS_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(65535).optional()),
  /** When set (16+ characters), enables POST /api/reader-events for `Authorization: Bearer <it>`. */
  READER_EVENTS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16).optional()),
  /**
   * Addresses of reverse proxies (comma-separated, exact) whose X-Forwarded-For names the reader
   * for reader counting; from any other peer the header is ignored.
   */
  TRUSTED_PROXIES: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default('')
      .refine((v) => v.split(',').every((a) => a.trim() === '' || isIP(a.trim()) !== 0), 'exact IP addresses only'),
  ),
  /**
   * Readers one client address adds to one article's open, read or full-read count per UTC day,
   * whatever user agents it sends (a household or an office behind one address still counts).
   */
  READERS_PER_ADDRESS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(100_000).default(20)),
  /**
   * Prefix length of the IPv6 network counted as one client address for READERS_PER_ADDRESS (a
   * client is normally handed a whole /64 and can send from any address in it); 32 to 128.
   * IPv4 addresses count one by one; `::ffff:a.b.c.d` is `a.b.c.d`; every loopback spelling is one.
   */
  READER_IPV6_PREFIX: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(32).max(128).default(64)),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./.data')),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  /**
   * What DATABASE_URL points at: `auto` finds out (a server refusing this service's start-up
   * parameters is a pooler); `none`: PostgreSQL itself; `transaction`: a transaction-mode pooler
   * without prepared statements (PgBouncer before 1.21); `transaction-prepared`: one that maps
   * them (PgBouncer 1.21+ with max_prepared_statements).
   */
  DATABASE_POOLER: z.preprocess(
    emptyAsUndefined,
    z.enum(['auto', 'none', 'transaction', 'transaction-prepared']).default('auto'),
  ),
  ALLOWED_PRIVATE_ADDRESSES: z.preprocess(emptyAsUndefined, z.string().default('')),
  /** Ports public addresses may be fetched on besides 80 and 443 (comma-separated). */
  ALLOWED_OUTBOUND_PORTS: z.preprocess(emptyAsUndefined, z.string().default('')),
  MEDIA_STORAGE: z.preprocess(emptyAsUndefined, z.enum(['fs', 's3']).default('fs')),
  S3_BUCKET: z.preprocess(emptyAsUndefined, z.string().optional()),
  S3_ENDPOINT: z.preprocess(emptyAsUndefined, z.string().url().optional()),
  S3_REGION: z.preprocess(emptyAsUndefined, z.string().default('us-east-1')),
  SESSION_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32).optional()),
  LOG_LEVEL: z.preprocess(emptyAsUndefined, z.enum(['silent', 'info']).default('info')),
  /** Markdown conversion threads; default: the cores less one, kept for the HTTP event loop. */
  CONTENT_POOL_THREADS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(64).optional()),
  /** The bundled conversion worker (`npm run build:server`); default: dist/content-worker.mjs. */
  CONTENT_WORKER_PATH: z.preprocess(emptyAsUndefined, z.string().optional()),
  /**
   * Nice value of the conversion worker threads (Linux): above the event loop's 0, so conversions
   * yield the CPU to requests that need none; 0 keeps them at the normal priority.
   */
  CONTENT_WORKER_NICE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(19).default(10)),
  /**
   * Young generation (MB) of the conversion threads for documents over 64 KB (the background
   * lane): at 128 the largest documents take a third to a half less CPU than at V8's 48, for a
   * higher peak of memory while one converts (server/content/pool.ts says why, docs/memory.md
   * what it costs).
   */
  CONTENT_BACKGROUND_YOUNG_MB: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(8).max(512).default(128)),
  /** Documents of one account waiting for a conversion worker; more are refused with 503. */
  CONTENT_QUEUE_PER_ACCOUNT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(1000).default(32)),
  /** Documents of all accounts waiting for a conversion worker; more are refused with 503. */
  CONTENT_QUEUE_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(10000).default(128)),
  /**
   * How often each instance looks for articles whose scheduled publication is due (the console's
   * scheduling): an article is published within this long after its time.
   */
  SCHEDULED_PUBLISH_POLL_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(50).max(600_000).default(5_000),
  ),
  /** Image downloads (from-url and rehost) in flight in the process; more wait for a turn. */
  MEDIA_DOWNLOADS_IN_FLIGHT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(256).default(16)),
  /**
   * Bytes (MiB) of downloaded image files held at once in the process, from-url and rehost
   * together; a download that would pass it is refused (503, or a rehost_failed cause).
   */
  MEDIA_DOWNLOAD_MEMORY_MB: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(65536).default(256)),
  /** GIF → MP4 conversions (ffmpeg children) at once in the process; more wait for a turn. */
  GIF_CONVERSIONS_IN_FLIGHT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(64).default(1)),
  /** ffmpeg for GIF → MP4; default: /usr/bin/ffmpeg when present, else the npm package's binary. */
  FFMPEG_PATH: z.preprocess(emptyAsUndefined, z.string().optional()),
  /** Longest pause between two chunks of an upload's body before it is refused (milliseconds). */
  UPLOAD_IDLE_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(600_000).default(15_000)),
  /**
   * Least rate (bytes per second) an upload's body must average over UPLOAD_RATE_WINDOW_MS once
   * a first window has passed; slower: 400 and connection closed. 0: no floor.
   */
  UPLOAD_MIN_BYTES_PER_SECOND: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(100_000_000).default(1024),
  ),
  /** The sliding window (ms) of that average, and the grace period before it is first judged. */
  UPLOAD_RATE_WINDOW_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(600_000).default(30_000)),
  /** The same for the JSON body of a REST write. */
  JSON_BODY_IDLE_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).max(600_000).default(15_000),
  ),
  /** Longest time (ms) for the whole JSON body of a REST write, however steadily it trickles in. */
  JSON_BODY_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(600_000).default(30_000)),
  /** Connections of the prepared-statement pool (authentication and the reads) per process. */
  STATEMENT_POOL_SIZE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1000).default(10)),
  /**
   * `off`: an instance for the API only (REST, media, public pages, reader routes, health,
   * metrics), without the console's Next thread (its memory and its second of start-up); the
   * console's paths answer 404 there. `on` (default): everything, as `npm start` promises.
   */
  CONSOLE: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).default('on')),
  /** After SIGTERM, how long /api/health answers 503 while requests are still served (proxy health checks). */
  SHUTDOWN_DRAIN_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(60_000).default(0)),
  /** Base URLs of shared caches that take `PURGE <path>` (comma-separated); empty: no purges. */
  CACHE_PURGE_URLS: z.preprocess(emptyAsUndefined, z.string().default('')).transform(parseCachePurgeUrls),
  // OpenTelemetry traces (README, "Traces"): the standard variables, off unless an endpoint or
  // the exporter is named. `tracesUrl` (below) is the one answer the process reads.
  /** `otlp` (OTLP over HTTP, JSON) or `none`; unset: on when an OTLP endpoint is set. */
  OTEL_TRACES_EXPORTER: z.preprocess(emptyAsUndefined, z.enum(['otlp', 'none']).optional()),
  /** Base URL of an OTLP/HTTP receiver; traces go to `<it>/v1/traces`. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(emptyAsUndefined, httpUrl().optional()),
  /** The traces URL itself, used as written (wins over OTEL_EXPORTER_OTLP_ENDPOINT). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.preprocess(emptyAsUndefined, httpUrl().optional()),
  /** Only `http/json` is sent (the exporter this service bundles); another value stops the start. */
  OTEL_EXPORTER_OTLP_PROTOCOL: z.preprocess(emptyAsUndefined, z.enum(['http/json']).optional()),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.preprocess(emptyAsUndefined, z.enum(['http/json']).optional()),
  /** `service.name` of every span; two instances of one deployment share it. */
  OTEL_SERVICE_NAME: z.preprocess(emptyAsUndefined, z.string().max(200).default('author-publishing')),
  /** Which traces are kept: the SDK's standard samplers; `parentbased_always_on` by default. */
  OTEL_TRACES_SAMPLER: z.preprocess(
    emptyAsUndefined,
    z
      .enum([
        'always_on',
        'always_off',
        'traceidratio',
        'parentbased_always_on',
        'parentbased_always_off',
        'parentbased_traceidratio',
      ])
      .default('parentbased_always_on'),
  ),
  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z.preprocess(emptyAsUndefined, z.coerce.number().min(0).max(1).default(1)),
  /** Longest time (ms) a finished span waits before it is sent with others. */
  OTEL_BSP_SCHEDULE_DELAY: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(10).max(600_000).default(5_000)),
});

/** An http(s) URL, as the OTLP endpoints must be. */
function httpUrl() {
  return z
    .string()
    .url()
    .refine((text) => /^https?:\/\//i.test(text), 'must be an http(s) URL');
}

/**
 * Where this process sends its spans, or undefined when traces are off (the default): the
 * specification's rule, except that nothing is sent until an endpoint or the exporter is named.
 * `OTEL_TRACES_EXPORTER=otlp` alone sends to the specification's default receiver on this machine.
 */
function tracesUrlOf(e: z.infer<typeof EnvSchema>): string | undefined {
  if (e.OTEL_TRACES_EXPORTER === 'none') return undefined;
  if (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (e.OTEL_EXPORTER_OTLP_ENDPOINT) return `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return e.OTEL_TRACES_EXPORTER === 'otlp' ? 'http://localhost:4318/v1/traces' : undefined;
}

/** Each entry an http(s) URL without query or fragment (a path prefix is kept). */
function parseCachePurgeUrls(text: string, ctx: z.RefinementCtx): string[] {
  const urls: string[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not an http(s) base URL without query or fragment` });
      return [];
    }
    urls.push(entry);
  }
  return urls;
}

export type Env = z.infer<typeof EnvSchema> & {
  dataDir: string;
  /** The OTLP/HTTP traces URL (tracesUrlOf); undefined: traces are off. */
  tracesUrl: string | undefined;
};

function readEnv(): Env {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid environment: ${problems}`);
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.DATA_DIR), tracesUrl: tracesUrlOf(parsed.data) };
}

/** `https://blog.example[:port]` as written (a final `/` allowed), or undefined for anything more or else. */
function originOnly(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password || url.pathname !== '/' || /[?#]/.test(text)) return undefined;
  return url.origin;
}

export const env: Env = readEnv();
