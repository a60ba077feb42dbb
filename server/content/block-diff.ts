/**
 * Two renderings of an article compared block by block (paragraphs, headings, images, islands),
 * and word by word inside a plain-text block edited in place: the computing half of the
 * console's "what changes on publish" (server/console/publish-diff.ts presents it). Pure and
 * bounded (sequence-diff.ts), so the content worker pool can run it off the event loop.
 *
 * The body is the content pipeline's serialized output, so its top-level elements can be cut
 * apart with a tokenizer that only needs to understand tags and quoted attributes.
 */
import { htmlTags } from './html-tags';
import { ADDED, diffSequences, REMOVED, workBudget, type WorkBudget } from './sequence-diff';

/** `changed`: a text block edited in place; its html carries word-level <del>/<ins> marks. */
export type BlockChange = { kind: 'same' | 'added' | 'removed' | 'changed'; html: string };

/** The parts of one rendering that are diffed separately, so a change never moves between them. */
export interface ArticleZones {
  cover: string;
  body: string;
  tags: string;
}

/** `body` is null when marking it would take more than the work budget: the body changed. */
export interface ZonesDiff {
  cover: BlockChange[];
  body: BlockChange[] | null;
  tags: BlockChange[];
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

/**
 * Same/removed/added runs turning `before` into `after` (a shortest edit script); within a
 * changed run the old blocks go first, so it reads as "this became that". Null once `work`
 * is spent.
 */
export function diffBlocks(before: string[], after: string[], work: WorkBudget = workBudget()): BlockChange[] | null {
  const steps = diffSequences(before, after, work);
  if (!steps) return null;
  const out: BlockChange[] = [];
  let i = 0;
  let j = 0;
  for (const step of steps) {
    if (step === REMOVED) out.push({ kind: 'removed', html: before[i++]! });
    else if (step === ADDED) out.push({ kind: 'added', html: after[j++]! });
    else {
      out.push({ kind: 'same', html: before[i++]! });
      j++;
    }
  }
  return out;
}

/** `<p>text</p>`-like: one element whose content is plain text (no nested tags). */
const TEXT_BLOCK = /^<(p|h[1-6]|li|blockquote)((?:\s[^>]*)?)>([^<]*)<\/\1>$/;

/**
 * Tokens of a text block's HTML: words (letters, digits), each punctuation mark on its own, the
 * spaces between them, and a character reference (`&amp;`) whole so a mark never cuts one. So
 * "5." → "5" marks the full stop removed, not the number removed and added again.
 */
function words(text: string): string[] {
  return text.match(/&#?[0-9A-Za-z]+;|\s+|[\p{L}\p{M}\p{N}_]+|[^\s]/gu) ?? [];
}

/**
 * A paragraph or heading edited in place reads better as one block with the changed words
 * marked than as a removed block and an added one. Only for plain-text blocks with the same
 * element and attributes, so the marks never cut through markup. Each removed block pairs
 * with the first unpaired added block of its kind in the run. Word diffs share `work`.
 */
export function inlineEdits(changes: BlockChange[], work: WorkBudget = workBudget()): BlockChange[] {
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
    // Unpaired added text blocks by element and attributes, in order: one pass, not one per removed block.
    const candidates = new Map<string, BlockChange[]>();
    for (const c of added) {
      const b = c.kind === 'added' ? TEXT_BLOCK.exec(c.html) : null;
      if (!b) continue;
      const key = `${b[1]}${b[2]}`;
      const list = candidates.get(key);
      if (list) list.push(c);
      else candidates.set(key, [c]);
    }
    const partner = new Map<BlockChange, BlockChange>();
    for (const r of removed) {
      const a = TEXT_BLOCK.exec(r.html);
      const match = a ? candidates.get(`${a[1]}${a[2]}`)?.shift() : undefined;
      if (match) partner.set(match, r);
    }
    const paired = new Set(partner.values());
    out.push(...removed.filter((r) => !paired.has(r)));
    for (const c of added) {
      const r = partner.get(c);
      if (!r) {
        out.push(c);
        continue;
      }
      // Past the work budget the pair is shown as it is: the old block went, the new one came.
      const html = wordDiff(r.html, c.html, work);
      if (html === null) out.push(r, c);
      else out.push({ kind: 'changed', html });
    }
  }
  return out;
}

/** The new block with the words that differ from the old one marked; null once `work` is spent. */
function wordDiff(before: string, after: string, work: WorkBudget): string | null {
  const a = TEXT_BLOCK.exec(before)!;
  const b = TEXT_BLOCK.exec(after)!;
  const changes = diffBlocks(words(a[3]!), words(b[3]!), work);
  if (!changes) return null;
  // Consecutive words of one kind are marked together: "<del>noon.</del><ins>half past twelve.</ins>".
  const runs: BlockChange[] = [];
  for (const w of changes) {
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

/**
 * The three zones of two renderings diffed under one work budget. Past it the body is
 * reported as changed without marks (cover and tags are one block each and always marked).
 */
export function diffArticleZones(before: ArticleZones, after: ArticleZones, steps?: number): ZonesDiff {
  const work = workBudget(steps);
  const small = (x: string, y: string) => diffBlocks(splitBlocks(x), splitBlocks(y), workBudget()) ?? [];
  const blocks = diffBlocks(splitBlocks(before.body), splitBlocks(after.body), work);
  return {
    cover: small(before.cover, after.cover),
    body: blocks && inlineEdits(blocks, work),
    tags: small(before.tags, after.tags),
  };
}
