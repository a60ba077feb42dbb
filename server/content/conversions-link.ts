/**
 * The process's one conversion pool, reached from another thread of the process. The console
 * runs in a thread of its own (runtime/console-thread-host.ts); a pool of its own there would
 * claim the cores a second time and keep a fair queue the REST surface's accounts never meet.
 * So the console's conversions go over a MessagePort to the pool the REST thread holds, and
 * take their turns in the same fair queue, under the same budgets.
 *
 * Each call is a message `{ id, method, args }`; the answer `{ id, value }` or `{ id, error }`.
 * The pool's own refusals cross as themselves (a ContentRejectedError stays a 400 in the
 * console, a ConversionBusyError a 503); any other failure as a plain Error with its message.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ArticleZones, ZonesDiff } from './block-diff';
import { ContentRejectedError, ConversionBusyError } from './errors';
import type { Conversions } from './pool';
import type { RenderInput, RenderOutput } from './types';
import { activeTraceparent, contextOf, TRACING, withContext } from '../foundation/tracing';

/** The pool's methods the link carries: the console thread calls them, the REST thread answers only them. */
const METHODS = [
  'render',
  'rewriteImageSources',
  'diffZones',
  'queueFull',
] as const satisfies readonly (keyof Conversions)[];
type Method = (typeof METHODS)[number];

interface Call {
  id: number;
  method: Method;
  args: unknown[];
  /** Traces on: the caller's span (a console action's), for the pool's `conversion` span. */
  traceparent?: string;
}

interface CrossedError {
  name: string;
  message: string;
}

type Result = { value: unknown; error?: undefined } | { error: CrossedError };
type Answer = Result & { id: number };

/** The errors of the pool that callers tell apart, by name; the rest become plain Errors. */
const KNOWN_ERRORS: Record<string, (message: string) => Error> = {
  ContentRejectedError: (message) => new ContentRejectedError(message),
  ConversionBusyError: (message) => new ConversionBusyError(message),
};

/** Answers the calls arriving on `port` with `pool` (the REST thread's side of the link). */
export function serveConversions(port: MessagePort, pool: Conversions): void {
  port.on('message', (call: Call) => {
    const answer = (result: Result) => port.postMessage({ id: call.id, ...result });
    if (!(METHODS as readonly string[]).includes(call.method)) {
      answer({ error: { name: 'Error', message: `no conversion method ${String(call.method)}` } });
      return;
    }
    const run = () => (pool[call.method] as (...args: unknown[]) => unknown)(...call.args);
    Promise.resolve()
      .then(() => (call.traceparent ? withContext(contextOf(call.traceparent), run) : run()))
      .then(
        (value) => answer({ value }),
        (err: unknown) =>
          answer({
            error: {
              name: err instanceof Error ? err.name : 'Error',
              message: err instanceof Error ? err.message : String(err),
            },
          }),
      );
  });
}

/** The conversions of the pool at the other end of `port` (the console thread's side of the link). */
export function conversionsOverPort(port: MessagePort): Conversions & { close(): void } {
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  let nextId = 1;
  port.on('message', (answer: Answer) => {
    const call = pending.get(answer.id);
    if (!call) return;
    pending.delete(answer.id);
    if (answer.error)
      call.reject((KNOWN_ERRORS[answer.error.name] ?? ((m: string) => new Error(m)))(answer.error.message));
    else call.resolve(answer.value);
  });
  // A link with nothing pending does not keep the thread alive.
  port.unref();
  const call = <T>(method: Method, args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      const traceparent = TRACING ? activeTraceparent() : undefined;
      port.postMessage((traceparent ? { id, method, args, traceparent } : { id, method, args }) satisfies Call);
    });
  return {
    render: (input: RenderInput, owner?: string) => call<RenderOutput>('render', [input, owner]),
    rewriteImageSources: (html: string, rehosted: Record<string, string>, owner?: string) =>
      call<string>('rewriteImageSources', [html, rehosted, owner]),
    diffZones: (before: ArticleZones, after: ArticleZones, owner?: string) =>
      call<ZonesDiff>('diffZones', [before, after, owner]),
    queueFull: (owner: string) => call<boolean>('queueFull', [owner]),
    close: () => {
      for (const { reject } of pending.values()) reject(new ConversionBusyError('The conversion link closed'));
      pending.clear();
      port.close();
    },
  };
}
