/**
 * Markdown (GFM + HTML islands) -> sanitized HTML, in-thread. Sanitizing comes after the last
 * step that handles untrusted markup; only trusted plugins run after it:
 * remark-parse -> remark-gfm (its literal autolinks only where text may hold one,
 * literal-autolinks.ts) -> source positions dropped (without-positions.ts) -> remark-rehype ->
 * rehype-raw (when the document has raw HTML) -> removal of addresses of this service (it only
 * deletes; plugins/self-addresses.ts) -> rehype-sanitize(schema) -> trusted post-plugins (they
 * only delete, or rebuild from validated values) -> serialize.
 * Runs inside the worker pool in production (pool.ts); unit tests call it directly.
 */
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkRehype, { defaultHandlers } from 'remark-rehype';
import rehypeSanitize from 'rehype-sanitize';
import { tagNames, type Root } from './hast';
import type { RenderInput, RenderOutput } from './types';
import { ContentRejectedError, REJECT } from './errors';
import { MAX_MARKDOWN_BYTES } from './conversion-bounds';
import { assertNestingWithinLimit } from './prescan';
import { prepareMarkdown } from './prepare';
import { sanitizeSchema } from './sanitize-schema';
import { renderContext, type FileLike, type RenderContext } from './context';
import rehypeSelfAddresses from './plugins/self-addresses';
import rehypeLinkCard from './plugins/link-card';
import rehypeLinks from './plugins/links';
import rehypeImages, { collectExternalImages } from './plugins/images';
import rehypeFigure from './plugins/figure';
import rehypeGallery from './plugins/gallery';
import rehypeGif from './plugins/gif';
import rehypeVideoEmbed from './plugins/video-embed';
import rehypeEmbed from './plugins/embed';
import rehypeVideo from './plugins/video';
import rehypeDetails from './plugins/details';
import rehypeTable from './plugins/table';
import rehypeNormalize from './plugins/normalize';
import rehypeNotEmpty from './plugins/not-empty';
import rehypeH1 from './plugins/h1';
import { serializeTree } from './serialize';
import rehypeRawWhenWritten from './raw-html';
import rehypeSchemeCase from './plugins/scheme-case';
import remarkLiteralAutolinksWhereTheyMayBe from './literal-autolinks';
import remarkWithoutPositions from './without-positions';
import './micromark-edit-map';
import type { BlockParseCache } from './block-parse';
import type { Root as MarkdownRoot } from 'mdast';

type Handler = (typeof defaultHandlers)['image'];
type HandlerState = Parameters<Handler>[0];

/**
 * Remembers how the author wrote each Markdown image destination: the default handlers
 * percent-encode it into `src`, and `rehost_failed` must report the URL as written.
 */
function noteAuthored(state: HandlerState, result: unknown, authored: string | null | undefined) {
  const file = (state.options as { file?: { data: Record<string, unknown> } }).file;
  const src = (result as { type?: string; properties?: { src?: unknown } })?.properties?.src;
  if (!file || typeof src !== 'string' || typeof authored !== 'string') return;
  const spellings = renderContext(file).authored;
  const known = spellings.get(src);
  if (!known) spellings.set(src, [authored]);
  else if (!known.includes(authored)) known.push(authored);
}

/** The document has raw HTML: rehype-raw must parse it (raw-html.ts). */
function noteRawHtml(state: HandlerState) {
  const file = (state.options as { file?: { data: Record<string, unknown> } }).file;
  if (file) renderContext(file).rawHtml = true;
}

const handlers = {
  html: ((state, node) => {
    noteRawHtml(state);
    return defaultHandlers.html(state, node);
  }) as (typeof defaultHandlers)['html'],
  image: ((state, node) => {
    const result = defaultHandlers.image(state, node);
    noteAuthored(state, result, node.url);
    return result;
  }) as Handler,
  imageReference: ((state, node) => {
    const result = defaultHandlers.imageReference(state, node);
    noteAuthored(state, result, state.definitionById.get(String(node.identifier).toUpperCase())?.url);
    return result;
  }) as (typeof defaultHandlers)['imageReference'],
};

type Transform = (tree: Root, file: FileLike) => void;

/**
 * An island or rule plugin, run only when the sanitized tree has an element it acts on (`tags`;
 * no plugin before it makes such an element from nothing): each is a walk of the whole tree, and
 * most documents have no figure, embed, GIF, video or spoiler at all.
 */
function onlyWith(tags: string[], plugin: () => Transform) {
  return () => {
    const transform = plugin();
    return (tree: Root, file: FileLike) => {
      const present = renderContext(file).tags;
      if (tags.some((tag) => present.has(tag))) transform(tree, file);
    };
  };
}

/**
 * The syntax extensions the Markdown parse adds to remark-parse's CommonMark, in order, each
 * named (with its options, if it ever takes any): their one home. The processor is built from
 * this list, and block-parse.ts cuts a document into blocks only when it is handed exactly the
 * list its cut rules were written for; with any other it parses the document whole.
 */
export const MARKDOWN_SYNTAX_EXTENSIONS = [{ name: 'remark-gfm', plugin: remarkGfm }] as const;

const processor = unified()
  .use(remarkParse)
  .use(MARKDOWN_SYNTAX_EXTENSIONS.map(({ plugin }) => plugin))
  .use(remarkLiteralAutolinksWhereTheyMayBe)
  // Nothing past this point reads source positions (without-positions.ts).
  .use(remarkWithoutPositions)
  .use(remarkRehype, { allowDangerousHtml: true, handlers })
  .use(rehypeRawWhenWritten)
  // `HTTP://` is `http://`: folded before anything compares schemes as written (scheme-case.ts).
  .use(rehypeSchemeCase)
  // Before the sanitizer, which would drop most of them without a word (plugins/self-addresses.ts).
  .use(rehypeSelfAddresses)
  .use(rehypeSanitize, sanitizeSchema)
  .use(() => (tree: Root, file) => {
    renderContext(file).tags = tagNames(tree);
  })
  // Order matters: cards before links and images (their favicon is not a body image), figures
  // before galleries, video embeds before generic embeds (lone iframes), structure fixes last.
  .use(onlyWith(['a'], rehypeLinkCard))
  .use(onlyWith(['a'], rehypeLinks))
  .use(onlyWith(['img'], rehypeImages))
  .use(onlyWith(['figure'], rehypeFigure))
  .use(onlyWith(['figure'], rehypeGallery))
  .use(onlyWith(['div'], rehypeGif))
  .use(onlyWith(['div'], rehypeVideoEmbed))
  .use(onlyWith(['div', 'iframe'], rehypeEmbed))
  .use(onlyWith(['video'], rehypeVideo))
  .use(onlyWith(['details'], rehypeDetails))
  .use(onlyWith(['table'], rehypeTable))
  .use(rehypeNormalize)
  .use(rehypeNotEmpty)
  .use(rehypeH1)
  .use(() => (tree: Root, file) => {
    const context = renderContext(file);
    context.externalImages = collectExternalImages(tree);
  })
  .freeze();

/** The parse step alone (remark-parse with GFM): the tree block-parse.ts builds block by block. */
export function parseMarkdownSync(text: string): MarkdownRoot {
  return processor.parse(text) as MarkdownRoot;
}

/** Where a conversion may take the blocks its account parsed recently (block-parse.ts). */
export interface ParsedBlocks {
  cache: BlockParseCache;
  /** Whose blocks: the account converting. */
  scope: string;
}

export function renderArticleSync(input: RenderInput, parsedBlocks?: ParsedBlocks): RenderOutput {
  const markdown = preparedMarkdown(input);
  const tree = withinStack(() =>
    parsedBlocks
      ? parsedBlocks.cache.parse(markdown, parsedBlocks.scope, parseMarkdownSync, MARKDOWN_SYNTAX_EXTENSIONS)
      : parseMarkdownSync(markdown),
  );
  return renderTreeSync(input, markdown, tree);
}

/**
 * The Markdown of `input` as it is parsed: checked (a string, within the size limit, within the
 * nesting limit of prescan.ts) and prepared (prepare.ts). Throws ContentRejectedError.
 */
export function preparedMarkdown(input: RenderInput): string {
  if (typeof input.markdown !== 'string') throw new ContentRejectedError('markdown: must be a string');
  const bytes = Buffer.byteLength(input.markdown, 'utf8');
  if (bytes > MAX_MARKDOWN_BYTES) throw new ContentRejectedError(REJECT.tooLarge(MAX_MARKDOWN_BYTES));
  const markdown = prepareMarkdown(input.markdown);
  assertNestingWithinLimit(markdown);
  return markdown;
}

/**
 * Deep nesting the pre-scan does not model (raw HTML, emphasis) can still exhaust the stack of
 * the recursive tree walkers; that is a property of the document, not a server fault.
 */
export function withinStack<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof RangeError) throw new ContentRejectedError(REJECT.stackExhausted);
    throw error;
  }
}

/**
 * The conversion of `input` from its prepared Markdown (`preparedMarkdown`) and that Markdown's
 * tree (`parseMarkdownSync`'s, or one built as it would be: block-parse.ts, parse-in-parts.ts),
 * which the conversion changes.
 */
export function renderTreeSync(input: RenderInput, markdown: string, markdownTree: MarkdownRoot): RenderOutput {
  const context: RenderContext = {
    title: typeof input.title === 'string' ? input.title : '',
    rehosted: new Map(Object.entries(input.rehosted ?? {})),
    externalImages: [],
    authored: new Map(),
    writtenAs: new Map(),
    selfOrigins: input.selfOrigins ?? [],
    selfImages: [],
    rawHtml: false,
    tags: new Set(),
  };
  return withinStack(() => {
    const file = { value: markdown, data: { render: context } };
    const tree = processor.runSync(markdownTree, file) as Root;
    const writtenAs: Record<string, string[]> = {};
    for (const url of context.externalImages) writtenAs[url] = context.writtenAs.get(url) ?? [url];
    return {
      html: serializeTree(tree),
      externalImages: context.externalImages,
      writtenAs,
      selfImages: context.selfImages,
    };
  });
}
