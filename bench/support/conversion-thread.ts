/**
 * One Markdown pipeline in a thread of its own, for bench/content.ts: each thread has its own
 * module instances, so the service's pipeline (which replaces micromark's EditMap.consume,
 * server/content/micromark-edit-map.ts) never changes what the stock pipelines run, and a
 * baseline checkout's pipeline runs its own code. Started through `startConversionThread`
 * (TypeScript is loaded with tsx's API in the thread).
 *
 * - `ours`: renderArticleSync of server/content (of `root`, another checkout, when given);
 * - `plain`: a plain unified pipeline, remark-parse, remark-gfm, remark-rehype, rehype-raw,
 *   rehype-sanitize (its default schema), rehype-stringify;
 * - `micromark`: micromark with micromark-extension-gfm straight to HTML, the parser the other
 *   two are built on (the ceiling of any pipeline that parses with it).
 */
import { parentPort, Worker, workerData } from 'node:worker_threads';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { profile } from './cpu-profile';

type PipelineName = 'ours' | 'plain' | 'micromark';
interface Settings {
  pipeline: PipelineName;
  root?: string;
}
type ThreadRequest =
  | { kind: 'convert'; markdown: string }
  | { kind: 'cpu' }
  /** `parts`: name -> pattern of the frames that make the part (cpu-profile.ts `Parts`). */
  | { kind: 'profile'; documents: string[]; rounds: number; parts: Record<string, string> };
type ThreadReply =
  | { kind: 'convert'; ms: number }
  | { kind: 'cpu'; ms: number }
  | { kind: 'profile'; profile: Awaited<ReturnType<typeof profile>> };

async function loadPipeline({ pipeline, root }: Settings): Promise<(markdown: string) => unknown> {
  if (pipeline === 'ours') {
    const file = path.join(root ?? path.resolve(import.meta.dirname, '../..'), 'server/content/pipeline.ts');
    const { renderArticleSync } = (await import(
      pathToFileURL(file).href
    )) as typeof import('../../server/content/pipeline');
    const { ContentRejectedError } = await import(pathToFileURL(path.join(path.dirname(file), 'errors.ts')).href);
    return (markdown) => {
      try {
        return renderArticleSync({ markdown, title: 'Bench' }).html;
      } catch (error) {
        if (error instanceof ContentRejectedError) return '';
        throw error;
      }
    };
  }
  if (pipeline === 'plain') {
    const [{ unified }, parse, gfm, toHast, raw, sanitize, stringify] = await Promise.all([
      import('unified'),
      import('remark-parse'),
      import('remark-gfm'),
      import('remark-rehype'),
      import('rehype-raw'),
      import('rehype-sanitize'),
      import('rehype-stringify'),
    ]);
    const processor = unified()
      .use(parse.default)
      .use(gfm.default)
      .use(toHast.default, { allowDangerousHtml: true })
      .use(raw.default)
      .use(sanitize.default)
      .use(stringify.default)
      .freeze();
    return (markdown) => String(processor.processSync(markdown));
  }
  const [{ micromark }, { gfm, gfmHtml }] = await Promise.all([import('micromark'), import('micromark-extension-gfm')]);
  return (markdown) =>
    micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

/** This thread's CPU time in ms (Linux; 10 ms ticks), from /proc/thread-self. */
async function threadCpuMs(): Promise<number> {
  const { readFileSync } = await import('node:fs');
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function serve(): Promise<void> {
  const convert = await loadPipeline(workerData as Settings);
  parentPort!.on('message', async (request: ThreadRequest) => {
    if (request.kind === 'convert') {
      const started = performance.now();
      convert(request.markdown);
      parentPort!.postMessage({ kind: 'convert', ms: performance.now() - started } satisfies ThreadReply);
    } else if (request.kind === 'cpu') {
      parentPort!.postMessage({ kind: 'cpu', ms: await threadCpuMs() } satisfies ThreadReply);
    } else {
      for (const markdown of request.documents) convert(markdown); // warm-up
      const parts = Object.fromEntries(
        Object.entries(request.parts).map(([name, pattern]) => [
          name,
          (frame: string) => new RegExp(pattern).test(frame),
        ]),
      );
      const result = await profile(() => {
        for (let r = 0; r < request.rounds; r++) for (const markdown of request.documents) convert(markdown);
      }, parts);
      parentPort!.postMessage({ kind: 'profile', profile: result } satisfies ThreadReply);
    }
  });
  parentPort!.postMessage('ready');
}

if (parentPort && (workerData as Settings | undefined)?.pipeline) await serve();

/** A started pipeline thread: one request at a time. */
export interface ConversionThread {
  name: string;
  ask<K extends ThreadRequest['kind']>(
    request: Extract<ThreadRequest, { kind: K }>,
  ): Promise<Extract<ThreadReply, { kind: K }>>;
  close(): Promise<number>;
}

export async function startConversionThread(name: string, settings: Settings): Promise<ConversionThread> {
  const tsx = import.meta.resolve('tsx/esm/api');
  const self = import.meta.url;
  const worker = new Worker(
    `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(self)}); });`,
    { eval: true, workerData: settings },
  );
  let pending: { resolve: (reply: never) => void; reject: (error: unknown) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    pending = { resolve: () => resolve(), reject };
  });
  worker.on('message', (reply) => {
    const waiting = pending;
    pending = undefined;
    waiting?.resolve(reply as never);
  });
  worker.on('error', (error) => pending?.reject(error));
  await ready;
  return {
    name,
    ask: (request) =>
      new Promise((resolve, reject) => {
        pending = { resolve: resolve as (reply: never) => void, reject };
        worker.postMessage(request);
      }),
    close: () => worker.terminate(),
  };
}
