import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { env } from './env';

/**
 * OpenTelemetry traces, the API side: what the code that makes spans calls (docs/traces.md
 * lists every span and attribute). The SDK that records and sends them is started per thread by
 * server/runtime/tracing-sdk.ts, and only when traces are on; off (the default) the SDK is never
 * loaded and `trace.getTracer` hands out the API's no-op tracer.
 *
 * `TRACING` is decided once, from the env. Code on a request's path tests it before it builds
 * anything for a span (a closure, an attribute object, a context), so with traces off a request
 * pays a branch on a constant at each place a span would start, and allocates nothing for them.
 *
 * What never goes into a span, its name, attributes or events: a token, a cookie, a header
 * value, a query string, Markdown or HTML, a URL beyond its host, an account's or an author's
 * data. Spans are named by route templates and statement names; the SDK also drops, at export,
 * any attribute not in `EXPORTED_ATTRIBUTES` (a library's, Next's), so a careless one never
 * leaves the process.
 */
export const TRACING: boolean = env.tracesUrl !== undefined;

/** Our instrumentation scope. */
const tracer = trace.getTracer('author-publishing');

export type { Context, Link, Span };

/** Every attribute key a span may carry when it is sent; anything else is dropped (tracing-sdk.ts). */
export const EXPORTED_ATTRIBUTES: ReadonlySet<string> = new Set([
  // Ours (docs/traces.md).
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'admission.way',
  'admission.rate_class',
  'admission.statement',
  'admission.batch.size',
  'db.system',
  'db.statement.name',
  'db.response.returned_rows',
  'conversion.task',
  'conversion.bytes',
  'conversion.lane',
  'conversion.parsed_characters',
  'conversion.reused_characters',
  'rehost.urls',
  'rehost.stored',
  'rehost.failed',
  'server.address',
  'media.download.bytes',
  'cache.purge.result',
  'cache.purge.attempts',
  'console.action.charge',
  'console.action.outcome',
  'readers.entries',
  'error.type',
  // Next's own spans in the console's thread, where they carry no request data.
  'next.span_name',
  'next.span_type',
  'next.route',
  'next.rsc',
  'next.segment',
  'next.bubble',
  'http.method',
  'http.status_code',
  'exception.type',
]);

/**
 * Starts the span of an HTTP request the process serves: named `METHOD` until its route is
 * known (`endRequestSpan`), a child of the caller's span when the request carries a W3C
 * `traceparent`. Its context is what the request's own spans hang from (`withSpan`).
 */
export function startRequestSpan(method: string, headers: Record<string, unknown>): Span {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  return tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
}

/** Names the request's span `METHOD /route/{template}`, never its concrete path, and ends it. */
export function endRequestSpan(span: Span, method: string, template: string, status: number): void {
  span.updateName(`${method} ${template}`);
  span.setAttribute('http.route', template);
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** The trace id of `span`, for the request's log lines. */
export function traceIdOf(span: Span): string {
  return span.spanContext().traceId;
}

/** The trace id of the span active here, if any (log lines written during a request). */
export function activeTraceId(): string | undefined {
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/**
 * Whether a recording span is active here. Statements are traced only inside a traced operation
 * (a request, an action, a flush), never as spans of their own: the sweeps and the scheduled
 * publishing poll run one every few seconds and would each start a trace.
 */
export function inTrace(): boolean {
  return trace.getSpan(context.active())?.isRecording() === true;
}

/** `work` with `span` as the active span: what it starts, it starts under `span`. */
export function withSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}

export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** The parent's context; default: the active one. */
  parent?: Context;
  links?: Link[];
}

/**
 * `work` in a span of its own, active while it runs; the span ends when `work`'s promise
 * settles. A failure marks the span an error with its kind only (`error.type`), never its
 * message (a refused input is quoted in some).
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { parent = context.active(), ...rest } = options;
  return tracer.startActiveSpan(name, rest, parent, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      markFailed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** `inSpan` for synchronous work. */
export function inSpanSync<T>(name: string, options: SpanOptions, work: (span: Span) => T): T {
  const { parent = context.active(), ...rest } = options;
  return tracer.startActiveSpan(name, rest, parent, (span) => {
    try {
      return work(span);
    } catch (err) {
      markFailed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A span started now and ended by the caller (a wait that ends in a callback elsewhere). */
export function startSpan(name: string, options: SpanOptions = {}): Span {
  const { parent = context.active(), ...rest } = options;
  return tracer.startSpan(name, rest, parent);
}

/**
 * The error's kind, never its message: a fetch's `problem`, a DomainError's `kind`, a Node or
 * PostgreSQL error's `code`, else its class's name.
 */
export function markFailed(span: Span, err: unknown): void {
  const e = err as { problem?: unknown; kind?: unknown; code?: unknown; name?: unknown } | null;
  const kind = [e?.problem, e?.kind, e?.code, e?.name].find((k) => typeof k === 'string');
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', typeof kind === 'string' ? kind : 'error');
}

/** The context active now: captured where work is queued, to be restored where it runs. */
export function activeContext(): Context {
  return context.active();
}

/** The span of a captured context (to add what was learnt later, such as a batch's size). */
export function spanOf(ctx: Context): Span | undefined {
  return trace.getSpan(ctx);
}

/** A link to the span active in `ctx`, if one is. */
export function linkTo(ctx: Context): Link | undefined {
  const span = trace.getSpan(ctx);
  return span ? { context: span.spanContext() } : undefined;
}

/**
 * The W3C `traceparent` of the active span, for work handed to another thread (the conversion
 * workers) or process (the console's thread over its socket); undefined when none is active.
 */
export function activeTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The `traceparent` of `span` (work handed on from a span that is not the active one). */
export function traceparentOf(span: Span): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

/** The active context with `span` as its span: the parent to give `span`'s children. */
export function contextWith(span: Span): Context {
  return trace.setSpan(context.active(), span);
}

/** `work` in the context `ctx` (a trace handed over from another thread). */
export function withContext<T>(ctx: Context, work: () => T): T {
  return context.with(ctx, work);
}

/** The context a `traceparent` names, to start spans in a thread the work was handed to. */
export function contextOf(traceparent: string): Context {
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

export { SpanKind };
