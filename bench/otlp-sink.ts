/**
 * An OTLP/HTTP trace receiver for benchmarks: it takes the exporter's `POST /v1/traces` on
 * loopback, as a collector would, counts the spans and throws them away (the tests' receiver,
 * tests/support/otlp-receiver.ts, keeps every span, which a load of thousands of requests a
 * second would turn into gigabytes). Every 10 s, and when stopped, it prints the spans and
 * export requests received so far, so a run shows that tracing was on and exporting.
 *
 *   npx tsx bench/otlp-sink.ts [--port 4318]
 *   OTEL_TRACES_EXPORTER=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 <the benchmark>
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4318' } } });

let spans = 0;
let exports = 0;
let refused = 0;

/** Spans in one OTLP/JSON export (resourceSpans → scopeSpans → spans). */
function spansIn(body: string): number {
  const request = JSON.parse(body) as { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
  let n = 0;
  for (const resource of request.resourceSpans ?? [])
    for (const scope of resource.scopeSpans ?? []) n += scope.spans?.length ?? 0;
  return n;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error(`${req.method} ${req.url}`);
      const raw = Buffer.concat(chunks);
      const body = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      spans += spansIn(body);
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } catch (err) {
      refused++;
      res.writeHead(400).end(String(err));
    }
  });
});

const report = () => console.error(`otlp sink: ${spans} spans in ${exports} exports (${refused} refused)`);
server.listen(Number(values.port), '127.0.0.1', () => console.error(`otlp sink on http://127.0.0.1:${values.port}`));
setInterval(report, 10_000).unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    report();
    process.exit(0);
  });
