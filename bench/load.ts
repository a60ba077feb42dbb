import http from 'node:http';

/**
 * A tiny closed-loop load generator: `concurrency` workers each send the next request as soon
 * as the previous one answers, for `durationMs`. Keep-alive sockets, latencies in ms.
 */
export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Every latency in ms, sorted (to merge slices of one scenario). */
  latencies: number[];
  seconds: number;
}

export interface LoadRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export async function runLoad(
  baseUrl: string,
  next: (i: number) => LoadRequest,
  opts: { concurrency: number; durationMs: number },
): Promise<LoadResult> {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let counter = 0;
  const deadline = Date.now() + opts.durationMs;
  const started = Date.now();

  const one = (req: LoadRequest) =>
    new Promise<number>((resolve) => {
      const t0 = process.hrtime.bigint();
      const r = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: req.path,
          method: req.method ?? 'GET',
          headers: req.headers,
          agent,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
            resolve(res.statusCode ?? 0);
          });
        },
      );
      r.on('error', () => {
        errors++;
        resolve(0);
      });
      if (req.body) r.write(req.body);
      r.end();
    });

  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (Date.now() < deadline) {
        const status = await one(next(counter++));
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  return resultOf(latencies, errors, statuses, (Date.now() - started) / 1000);
}

/** A run's result from what it counted: its latencies (sorted here), errors and statuses over `seconds`. */
function resultOf(latencies: number[], errors: number, statuses: Record<number, number>, seconds: number): LoadResult {
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return {
    requests: latencies.length,
    errors,
    statuses,
    rps: latencies.length / seconds,
    p50: pct(50),
    p90: pct(90),
    p99: pct(99),
    max: latencies[latencies.length - 1] ?? NaN,
    latencies,
    seconds,
  };
}

/** Slices of one scenario taken apart in time, summed up as if they were one run. */
export function mergeResults(parts: LoadResult[]): LoadResult {
  const statuses: Record<number, number> = {};
  for (const p of parts)
    for (const [k, v] of Object.entries(p.statuses)) statuses[Number(k)] = (statuses[Number(k)] ?? 0) + v;
  return resultOf(
    parts.flatMap((p) => p.latencies),
    parts.reduce((sum, p) => sum + p.errors, 0),
    statuses,
    parts.reduce((sum, p) => sum + p.seconds, 0),
  );
}

export function formatRow(name: string, r: LoadResult): string {
  const f = (n: number) => n.toFixed(1).padStart(8);
  return `${name.padEnd(34)} ${String(r.requests).padStart(7)} ${f(r.rps)} ${f(r.p50)} ${f(r.p90)} ${f(r.p99)}   ${JSON.stringify(r.statuses)}`;
}

export const HEADER = `${'scenario'.padEnd(34)} ${'reqs'.padStart(7)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'p99 ms'.padStart(8)}   statuses`;
