import { articleMarkup, escapeHtml, READER_STYLESHEET, type ArticleView } from '../reader-pages/article-document';
import { diffArticleZones, type ArticleZones, type BlockChange, type ZonesDiff } from '../content/block-diff';
import type { Conversions } from '../content';

/**
 * What readers will see differently once the working version is published: the fields around
 * the body (title, subtitle, tags, cover) compared as text, and the rendered article compared
 * block by block (paragraphs, headings, images, islands), so a change is shown in the markup
 * and stylesheet readers get rather than in Markdown they never see.
 *
 * The block comparison (server/content/block-diff.ts) is bounded in memory and work: past its
 * bound the body is reported as changed, in words, without marks. The changes frame runs it in
 * the content worker pool (`publishDiffInPool`), never on the event loop that serves requests.
 */

export interface FieldChange {
  field: 'title' | 'subtitle' | 'tags' | 'cover';
  before: string;
  after: string;
}

export interface PublishDiff {
  fields: FieldChange[];
  cover: BlockChange[];
  /** Empty when `bodyTooLarge`. */
  body: BlockChange[];
  tags: BlockChange[];
  /** The bodies differ by more than the diff may work on: "the body changed", without marks. */
  bodyTooLarge: boolean;
  /** True when anything a reader sees differs. */
  changed: boolean;
}

function tagText(view: Omit<ArticleView, 'html'>): string {
  return view.tags.map((t) => t.name).join(', ');
}

function coverText(view: Omit<ArticleView, 'html'>): string {
  return view.cover ? `${view.cover.url} (${view.cover.width}×${view.cover.height})` : '';
}

/** The fields around the body compared as text: cheap, no body diff (the editor page shows these). */
export function fieldChanges(published: Omit<ArticleView, 'html'>, working: Omit<ArticleView, 'html'>): FieldChange[] {
  const fields: FieldChange[] = [];
  const compare = (field: FieldChange['field'], before: string, after: string) => {
    if (before !== after) fields.push({ field, before, after });
  };
  compare('title', published.title, working.title);
  compare('subtitle', published.subtitle ?? '', working.subtitle ?? '');
  compare('tags', tagText(published), tagText(working));
  compare('cover', coverText(published), coverText(working));
  return fields;
}

const BODY_OPEN = '<div class="dp-article__body">';

/** The parts of one version that are diffed separately, so a change never moves between zones. */
function articleZones(view: ArticleView): ArticleZones {
  const markup = articleMarkup(view);
  const bodyStart = markup.indexOf(BODY_OPEN);
  const bodyEnd = markup.lastIndexOf('</div>');
  return {
    cover: markup.slice(0, bodyStart),
    body: markup.slice(bodyStart + BODY_OPEN.length, bodyEnd),
    tags: markup.slice(bodyEnd + '</div>'.length),
  };
}

function assemble(published: ArticleView, working: ArticleView, zones: ZonesDiff): PublishDiff {
  const fields = fieldChanges(published, working);
  const { cover, tags } = zones;
  const body = zones.body ?? [];
  const bodyTooLarge = zones.body === null;
  const changed = fields.length > 0 || bodyTooLarge || [...cover, ...body, ...tags].some((c) => c.kind !== 'same');
  return { fields, cover, body, tags, bodyTooLarge, changed };
}

/** The diff computed in this thread (bounded, but it may take a core for a moment). */
export function publishDiff(published: ArticleView, working: ArticleView): PublishDiff {
  return assemble(published, working, diffArticleZones(articleZones(published), articleZones(working)));
}

/**
 * The diff computed in the content worker pool, in `owner`'s turn of its fair queue (a busy
 * pool refuses with ConversionBusyError, as it does a conversion).
 */
export async function publishDiffInPool(
  content: Conversions,
  published: ArticleView,
  working: ArticleView,
  owner: string,
): Promise<PublishDiff> {
  const zones = await content.diffZones(articleZones(published), articleZones(working), owner);
  return assemble(published, working, zones);
}

function marked(changes: BlockChange[]): string {
  return changes
    .map((c) =>
      c.kind === 'same'
        ? c.html
        : c.kind === 'changed'
          ? `<div class="dp-diff dp-diff--changed"><span class="dp-diff__label">Changed</span>${c.html}</div>`
          : c.kind === 'added'
            ? `<ins class="dp-diff dp-diff--added"><span class="dp-diff__label">Added</span>${c.html}</ins>`
            : `<del class="dp-diff dp-diff--removed"><span class="dp-diff__label">Removed</span>${c.html}</del>`,
    )
    .join('');
}

const BODY_CHANGED = 'The body changed: too much to mark block by block. It is shown below as readers will get it.';

/** Highlighting only; everything else comes from the readers' stylesheet. */
const DIFF_CSS = `
.dp-diff{display:block;text-decoration:none;margin:.5rem -.75rem;padding:.1rem .75rem .1rem .5rem;border-left:4px solid;border-radius:4px}
.dp-diff--added{background:#dafbe1;border-color:#1a7f37}
.dp-diff--removed{background:#ffebe9;border-color:#cf222e}
.dp-diff--removed>:not(.dp-diff__label){text-decoration:line-through;opacity:.75}
.dp-diff__label{display:block;font:600 12px/1.6 system-ui,sans-serif;text-transform:uppercase;letter-spacing:.04em}
.dp-diff--added>.dp-diff__label{color:#116329}
.dp-diff--removed>.dp-diff__label{color:#a40e26}
.dp-diff--changed{background:#fff8c5;border-color:#9a6700}
.dp-diff--changed>.dp-diff__label{color:#7d4e00}
ins.dp-diff-word{background:#aceebb;text-decoration:none}
del.dp-diff-word{background:#ffcecb;text-decoration:line-through}
.dp-diff-none{font:15px/1.5 system-ui,sans-serif;color:#57606a}
`;

/**
 * The working version as readers will get it, with what publishing adds and removes marked.
 * Served with the same sandboxing headers as every preview frame.
 */
export function diffDocument(
  diff: PublishDiff,
  working: ArticleView,
  /** Said when nothing differs (the history's comparison of two saves says it its own way). */
  unchanged = 'Publishing changes nothing readers see.',
): string {
  const none = diff.changed ? '' : `<p class="dp-diff-none">${escapeHtml(unchanged)}</p>`;
  // Too much changed to mark: say so, and show the body as readers will get it.
  const body = diff.bodyTooLarge
    ? `<p class="dp-diff-none">${BODY_CHANGED}</p>${articleZones(working).body}`
    : marked(diff.body);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`Changes: ${working.title}`)}</title><style>${READER_STYLESHEET}</style><style>${DIFF_CSS}</style></head>
<body><div class="reader">${none}<article class="dp-article">${marked(diff.cover)}<div class="dp-article__body">${body}</div>${marked(diff.tags)}</article></div></body></html>`;
}
