import { htmlTags } from './html-tags';
import { articleMarkup, escapeHtml, READER_STYLESHEET, type ArticleView } from './article-document';

/**
 * What readers will see differently once the working version is published: the fields around
 * the body (title, subtitle, tags, cover) compared as text, and the rendered article compared
 * block by block (paragraphs, headings, images, islands), so a change is shown in the markup
 * and stylesheet readers get rather than in Markdown they never see.
 *
 * The body is the content pipeline's serialized output, so its top-level elements can be cut
 * apart with a tokenizer that only needs to understand tags and quoted attributes.
 */

export interface FieldChange {
  field: 'title' | 'subtitle' | 'tags' | 'cover';
  before: string;
  after: string;
}

/** `changed`: a text block edited in place; its html carries word-level <del>/<ins> marks. */
export type BlockChange = { kind: 'same' | 'added' | 'removed' | 'changed'; html: string };

export interface PublishDiff {
  fields: FieldChange[];
  cover: BlockChange[];
  body: BlockChange[];
  tags: BlockChange[];
  /** True when anything a reader sees differs. */
  changed: boolean;
}

/** The top-level elements of a serialized HTML fragment, whitespace between them dropped. */
export function splitBlocks(html: string): string[] {
  const blocks: string[] = [];
  let depth = 0;
  let start = 0;
  let text = 0; // end of the last complete block, where loose text would start
  for (const tag of htmlTags(html)) {
    const end = tag.index + tag.length;
    if (depth === 0) {
      const loose = html.slice(text, tag.index).trim();
      if (loose) blocks.push(loose);
    }
    if (tag.closing) {
      depth = Math.max(0, depth - 1);
      if (depth === 0) {
        blocks.push(html.slice(start, end));
        text = end;
      }
    } else if (tag.empty) {
      if (depth === 0) {
        blocks.push(html.slice(tag.index, end));
        text = end;
      }
    } else {
      if (depth === 0) start = tag.index;
      depth++;
    }
  }
  if (depth === 0) {
    const loose = html.slice(text).trim();
    if (loose) blocks.push(loose);
  } else {
    blocks.push(html.slice(start)); // unbalanced tail: kept whole rather than lost
  }
  return blocks;
}

/** Longest common subsequence of two block lists, walked into same/removed/added runs. */
export function diffBlocks(before: string[], after: string[]): BlockChange[] {
  const n = before.length;
  const m = after.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = before[i] === after[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: BlockChange[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      out.push({ kind: 'same', html: before[i]! });
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! > lcs[i + 1]![j]!)) {
      out.push({ kind: 'added', html: after[j]! });
      j++;
    } else {
      // On a tie the old block goes first, so a changed run reads as "this became that".
      out.push({ kind: 'removed', html: before[i]! });
      i++;
    }
  }
  return out;
}

function tagText(view: ArticleView): string {
  return view.tags.map((t) => t.name).join(', ');
}

function coverText(view: ArticleView): string {
  return view.cover ? `${view.cover.url} (${view.cover.width}×${view.cover.height})` : '';
}

/** The parts of one version that are diffed separately, so a change never moves between zones. */
function zones(view: ArticleView): { cover: string[]; body: string[]; tags: string[] } {
  const markup = articleMarkup(view);
  const bodyStart = markup.indexOf('<div class="dp-article__body">');
  const bodyEnd = markup.lastIndexOf('</div>');
  return {
    cover: splitBlocks(markup.slice(0, bodyStart)),
    body: splitBlocks(markup.slice(bodyStart + '<div class="dp-article__body">'.length, bodyEnd)),
    tags: splitBlocks(markup.slice(bodyEnd + '</div>'.length)),
  };
}

/** `<p>text</p>`-like: one element whose content is plain text (no nested tags). */
const TEXT_BLOCK = /^<(p|h[1-6]|li|blockquote)((?:\s[^>]*)?)>([^<]*)<\/\1>$/;

/** Words and the spaces between them, each its own token, so a diff keeps the spacing. */
function words(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? [];
}

/**
 * A paragraph or heading edited in place reads better as one block with the changed words
 * marked than as a removed block and an added one. Only for plain-text blocks with the same
 * element and attributes, so the marks never cut through markup.
 */
export function inlineEdits(changes: BlockChange[]): BlockChange[] {
  const out: BlockChange[] = [];
  let i = 0;
  while (i < changes.length) {
    if (changes[i]!.kind === 'same') {
      out.push(changes[i++]!);
      continue;
    }
    // One changed run: its removed blocks, then its added ones (diffBlocks' order).
    const run: BlockChange[] = [];
    while (i < changes.length && changes[i]!.kind !== 'same') run.push(changes[i++]!);
    const removed = run.filter((c) => c.kind === 'removed');
    const added = run.filter((c) => c.kind !== 'removed');
    const partner = new Map<BlockChange, BlockChange>();
    for (const r of removed) {
      const a = TEXT_BLOCK.exec(r.html);
      if (!a) continue;
      const match = added.find((c) => {
        const b = c.kind === 'added' && !partner.has(c) ? TEXT_BLOCK.exec(c.html) : null;
        return b !== null && b[1] === a[1] && b[2] === a[2];
      });
      if (match) partner.set(match, r);
    }
    const paired = new Set(partner.values());
    out.push(...removed.filter((r) => !paired.has(r)));
    for (const c of added) {
      const r = partner.get(c);
      out.push(r ? { kind: 'changed', html: wordDiff(r.html, c.html) } : c);
    }
  }
  return out;
}

/** The new block with the words that differ from the old one marked. */
function wordDiff(before: string, after: string): string {
  const a = TEXT_BLOCK.exec(before)!;
  const b = TEXT_BLOCK.exec(after)!;
  // Consecutive words of one kind are marked together: "<del>noon.</del><ins>half past twelve.</ins>".
  const runs: BlockChange[] = [];
  for (const w of diffBlocks(words(a[3]!), words(b[3]!))) {
    const last = runs.at(-1);
    if (last?.kind === w.kind) last.html += w.html;
    else runs.push({ ...w });
  }
  const marked = runs
    .map((w) =>
      w.kind === 'same'
        ? w.html
        : w.kind === 'added'
          ? `<ins class="dp-diff-word">${w.html}</ins>`
          : `<del class="dp-diff-word">${w.html}</del>`,
    )
    .join('');
  return `<${b[1]}${b[2]}>${marked}</${b[1]}>`;
}

export function publishDiff(published: ArticleView, working: ArticleView): PublishDiff {
  const fields: FieldChange[] = [];
  const compare = (field: FieldChange['field'], before: string, after: string) => {
    if (before !== after) fields.push({ field, before, after });
  };
  compare('title', published.title, working.title);
  compare('subtitle', published.subtitle ?? '', working.subtitle ?? '');
  compare('tags', tagText(published), tagText(working));
  compare('cover', coverText(published), coverText(working));
  const a = zones(published);
  const b = zones(working);
  const cover = diffBlocks(a.cover, b.cover);
  const body = inlineEdits(diffBlocks(a.body, b.body));
  const tags = diffBlocks(a.tags, b.tags);
  const changed = fields.length > 0 || [...cover, ...body, ...tags].some((c) => c.kind !== 'same');
  return { fields, cover, body, tags, changed };
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
export function diffDocument(diff: PublishDiff, working: ArticleView): string {
  const none = diff.changed ? '' : '<p class="dp-diff-none">Publishing changes nothing readers see.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`Changes: ${working.title}`)}</title><style>${READER_STYLESHEET}</style><style>${DIFF_CSS}</style></head>
<body><div class="reader">${none}<article class="dp-article">${marked(diff.cover)}<div class="dp-article__body">${marked(diff.body)}</div>${marked(diff.tags)}</article></div></body></html>`;
}
