/**
 * Per-document values handed to the plugins through `file.data` (the processor itself is built
 * once and frozen), plus the set of elements the trusted island plugins built.
 */
import type { Element } from './hast';

export interface RenderContext {
  title: string;
  rehosted: ReadonlyMap<string, string>;
  externalImages: string[];
  /**
   * Markdown image destinations as the author wrote them, by the percent-encoded `src` the
   * Markdown-to-HTML step gives them (pipeline.ts); raw HTML images keep their own spelling.
   */
  authored: Map<string, string[]>;
  /** Canonical external image URL -> the author's spellings of it, in document order. */
  writtenAs: Map<string, string[]>;
  /** See RenderInput.selfOrigins. */
  selfOrigins: readonly string[];
  /** Image addresses removed for pointing at this service outside its stored files, as the author wrote them. */
  selfImages: string[];
  /** Whether the document has raw HTML (set while converting to hast; pipeline.ts). */
  rawHtml: boolean;
  /** Tag names in the sanitized tree: the island plugins with nothing to do are skipped. */
  tags: Set<string>;
}

/** What a plugin gets as unified's file: the render context travels in its `data`. */
export interface FileLike {
  data: Record<string, unknown>;
}

export function renderContext(file: FileLike): RenderContext {
  const context = file.data.render as RenderContext | undefined;
  if (!context) throw new Error('content pipeline: render context missing');
  return context;
}

/** Notes an address removed for pointing at this service, in each of the author's spellings, once. */
export function noteSelfImage(context: RenderContext, spellings: readonly string[]): void {
  for (const spelling of spellings) if (!context.selfImages.includes(spelling)) context.selfImages.push(spelling);
}

/**
 * Island attributes (classes, data-*, style, role) survive only on elements rebuilt by a trusted
 * plugin from validated values; normalize.ts strips them from every other element, so a
 * hand-written `<div class="dp-embed">` without a valid iframe is just a `<div>`.
 */
const built = new WeakSet<Element>();

export function markBuilt<T extends Element>(el: T): T {
  built.add(el);
  return el;
}

export function isBuilt(el: Element): boolean {
  return built.has(el);
}
