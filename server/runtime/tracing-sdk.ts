import type { Attributes } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { env } from '../foundation/env';
import { EXPORTED_ATTRIBUTES, TRACING } from '../foundation/tracing';

/**
 * The OpenTelemetry SDK of one thread: started by each thread that makes spans (the launcher's,
 * the console's in console-thread.ts, each conversion worker in content-worker-entry.ts) before
 * its first span, and only when traces are on (foundation/env.ts `tracesUrl`). Off, this module
 * loads nothing: the SDK's packages are imported here, on demand, and nowhere else.
 *
 * Each thread records its spans in its own provider and sends them in batches (at most every
 * OTEL_BSP_SCHEDULE_DELAY ms) over OTLP/HTTP (JSON) to `tracesUrl`: a collector on the machine
 * (deploy/otel-collector.yaml), which forwards them. A trace crosses threads by its W3C
 * `traceparent` (the console's requests carry it over the socket, conversions with their job).
 *
 * What leaves the process is filtered once more here (`onlyListedAttributes`): attributes not in
 * foundation/tracing.ts's list are dropped, events keep only their name and listed attributes,
 * and a name that quotes a URL keeps its host only (Next's own spans in the console's thread
 * carry the request's target, query included, and exception messages).
 */
export interface Tracing {
  /** Sends what is waiting and stops (at shutdown, after the last request). */
  shutdown(): Promise<void>;
}

/** Starts this thread's SDK when traces are on; undefined (nothing loaded) when they are off. */
export async function startTracing(thread: 'http' | 'console' | 'conversion'): Promise<Tracing | undefined> {
  if (!TRACING) return undefined;
  const [{ NodeTracerProvider }, base, { OTLPTraceExporter }, { resourceFromAttributes }, semconv, core] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/semantic-conventions'),
      import('@opentelemetry/core'),
    ]);
  const ratio = env.OTEL_TRACES_SAMPLER_ARG;
  const sampler = {
    always_on: () => new base.AlwaysOnSampler(),
    always_off: () => new base.AlwaysOffSampler(),
    traceidratio: () => new base.TraceIdRatioBasedSampler(ratio),
    parentbased_always_on: () => new base.ParentBasedSampler({ root: new base.AlwaysOnSampler() }),
    parentbased_always_off: () => new base.ParentBasedSampler({ root: new base.AlwaysOffSampler() }),
    parentbased_traceidratio: () => new base.ParentBasedSampler({ root: new base.TraceIdRatioBasedSampler(ratio) }),
  }[env.OTEL_TRACES_SAMPLER]();
  const exporter = new OTLPTraceExporter({ url: env.tracesUrl });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [semconv.ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME,
      'process.pid': process.pid,
      'thread.name': thread,
    }),
    sampler,
    spanProcessors: [
      new base.BatchSpanProcessor(onlyListedAttributes(exporter), {
        scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY,
      }),
    ],
  });
  provider.register({ propagator: new core.W3CTraceContextPropagator() });
  return { shutdown: () => provider.shutdown().catch(() => undefined) };
}

/** The exporter, sent only listed attributes and names without URLs. */
function onlyListedAttributes(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans, done) => exporter.export(spans.map(redacted), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

function listed(attributes: Attributes): Attributes {
  const kept: Attributes = {};
  for (const key of Object.keys(attributes)) if (EXPORTED_ATTRIBUTES.has(key)) kept[key] = attributes[key];
  return kept;
}

/** `scheme://host/path?query` → `host`, and a bare `?query` dropped. */
const withoutUrls = (name: string) =>
  name.replace(/\b[a-z][a-z0-9+.-]*:\/\/([^/\s?#]*)\S*/gi, '$1').replace(/\?\S*/g, '');

/** The span as exported: a copy with only listed attributes, events reduced, and its name without URLs. */
function redacted(span: ReadableSpan): ReadableSpan {
  return {
    name: withoutUrls(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: { code: span.status.code },
    attributes: listed(span.attributes),
    links: span.links.map((l) => ({ context: l.context, attributes: l.attributes && listed(l.attributes) })),
    events: span.events.map((e) => ({ name: e.name, time: e.time, attributes: e.attributes && listed(e.attributes) })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
