import { absoluteHttpUrl, pointsAtThisService } from '../content';
import { GENERIC_EMBED_HOSTS } from '../content/embed-allowlist';
import { htmlTags, type HtmlTag } from '../content/html-tags';

/**
 * What the sanitizer took out of an author's text, found by comparing the Markdown with the
 * stored body: iframes whose host is not on the embed allowlist, elements that do not survive
 * (script, style, unknown elements, whose text is kept), attributes that no element of that
 * name keeps, and Markdown images and links whose address cannot stay (a relative image, a
 * `javascript:` link, a relative link). HTML inside code spans and fenced code is text, not
 * markup, and is skipped. A comparison, so it names what vanished without knowing each rule's
 * reason beyond these. Each item names the line of the Markdown it was written on.
 */
export interface RemovedMarkup {
  text: string;
  /** 1-based line of the Markdown where the removed markup was written. */
  line: number;
}

const EMBED_HOSTS = new Set(GENERIC_EMBED_HOSTS);

/** Code blocks and code spans blanked out (same length, line breaks kept): their `<…>` is shown, not parsed. */
function withoutCode(markdown: string): string {
  const blank = (code: string) => code.replace(/[^\n]/g, ' ');
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?(^\1[^\n]*$|(?![\s\S]))/gm, blank)
    .replace(/(`+)[^`][\s\S]*?\1/g, blank);
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Markdown images and links, `![alt](url)` and `[text](url)`, with their offsets. */
const MARKDOWN_LINK = /(!?)\[([^\]\n]*)\]\(\s*<?([^\s)>]*)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
const SCRIPT_SCHEME = /^\s*(javascript|vbscript|data):/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function hostOf(src: string): string | null {
  try {
    return new URL(src).hostname.toLowerCase();
  } catch {
    return null;
  }
}

function openTags(html: string): HtmlTag[] {
  return htmlTags(html).filter((t) => !t.closing);
}

const selfImageNote = (name: string, url: string) =>
  `The image ${name} was removed: “${url}” is an address of this service other than a stored file (a page or a reader counter, which would count this article's readers for another). Store the file under Media and insert it.`;

/** Markdown images and links whose address did not survive. */
function removedLinks(text: string, kept: HtmlTag[]): RemovedMarkup[] {
  const keptSources = new Set(kept.filter((t) => t.name === 'img').map((t) => t.attributes.get('src') ?? ''));
  const keptHrefs = new Set(kept.filter((t) => t.name === 'a').map((t) => t.attributes.get('href') ?? ''));
  const notes: RemovedMarkup[] = [];
  for (const m of text.matchAll(MARKDOWN_LINK)) {
    const [, bang, label, url = ''] = m;
    const line = lineAt(text, m.index);
    const name = label?.trim() ? `“${label.trim()}”` : `(${url || 'no address'})`;
    if (bang) {
      const absolute = absoluteHttpUrl(url);
      if (absolute && pointsAtThisService(absolute)) {
        notes.push({ text: selfImageNote(name, url), line });
        continue;
      }
      if (keptSources.has(url) || /^https?:\/\//i.test(url) || url.startsWith('/api/media/')) continue;
      notes.push({
        text: `The image ${name} was removed: ${url ? `“${url}” is not a full address` : 'it has no address'}. Use an https:// address, or store the file under Media and insert it.`,
        line,
      });
    } else if (SCRIPT_SCHEME.test(url)) {
      notes.push({
        text: `The link ${name} was removed (its text is kept): a ${url.split(':')[0]!.trim().toLowerCase()}: address runs code, and articles run none.`,
        line,
      });
    } else if (url && !HAS_SCHEME.test(url) && !url.startsWith('#') && !keptHrefs.has(url)) {
      notes.push({
        text: `The link ${name} was removed (its text is kept): “${url}” is a relative address, which leads nowhere from the public page. Use a full https:// address.`,
        line,
      });
    }
  }
  return notes;
}

export function removedMarkup(markdown: string, storedHtml: string): RemovedMarkup[] {
  const text = withoutCode(markdown);
  const written = openTags(text);
  const kept = openTags(storedHtml);
  const notes: RemovedMarkup[] = [];
  const firstLine = new Map<string, number>();
  for (const t of written) if (!firstLine.has(t.name)) firstLine.set(t.name, lineAt(text, t.index));

  const keptCount = new Map<string, number>();
  const keptAttributes = new Map<string, Set<string>>();
  for (const t of kept) {
    keptCount.set(t.name, (keptCount.get(t.name) ?? 0) + 1);
    const set = keptAttributes.get(t.name) ?? new Set<string>();
    for (const a of t.attributes.keys()) set.add(a);
    keptAttributes.set(t.name, set);
  }

  const keptIframeSources = new Set(kept.filter((t) => t.name === 'iframe').map((t) => t.attributes.get('src') ?? ''));
  const writtenCount = new Map<string, number>();
  for (const t of written) {
    writtenCount.set(t.name, (writtenCount.get(t.name) ?? 0) + 1);
    if (t.name !== 'iframe') continue;
    const src = t.attributes.get('src') ?? '';
    if (keptIframeSources.has(src)) continue;
    const host = hostOf(src);
    notes.push({
      text:
        host && !EMBED_HOSTS.has(host)
          ? `An iframe from ${host} was removed: that host is not on the embed allowlist.`
          : `An iframe (${src || 'without a src'}) was removed: embeds need an https player address of an allowlisted host inside a video or embed island.`,
      line: lineAt(text, t.index),
    });
  }

  // A raw <img> of this service's own address (a reader counter, a page) is removed with its reason.
  for (const t of written) {
    if (t.name !== 'img') continue;
    const src = absoluteHttpUrl(t.attributes.get('src') ?? '');
    if (!src || !pointsAtThisService(src)) continue;
    writtenCount.set('img', writtenCount.get('img')! - 1);
    notes.push({
      text: selfImageNote(`(${t.attributes.get('src')})`, t.attributes.get('src')!),
      line: lineAt(text, t.index),
    });
  }

  for (const [name, count] of writtenCount) {
    if (name === 'iframe') continue;
    const missing = count - (keptCount.get(name) ?? 0);
    if (missing <= 0) continue;
    notes.push({
      text:
        name === 'script' || name === 'style'
          ? `${missing} <${name}> element(s) removed: articles carry no scripts or styles of their own.`
          : `${missing} <${name}> element(s) removed (their text, if any, is kept): not an element articles may contain there.`,
      line: firstLine.get(name) ?? 1,
    });
  }

  const reported = new Set<string>();
  for (const t of written) {
    const keptHere = keptAttributes.get(t.name);
    if (!keptHere) continue; // the element itself is gone, reported above
    for (const a of t.attributes.keys()) {
      const key = `${t.name} ${a}`;
      if (keptHere.has(a) || reported.has(key)) continue;
      reported.add(key);
      notes.push({
        text: a.startsWith('on')
          ? `The ${a} attribute on <${t.name}> was removed: articles run no scripts.`
          : `The ${a} attribute on <${t.name}> was removed: it is not one articles keep on that element.`,
        line: lineAt(text, t.index),
      });
    }
  }
  return [...notes, ...removedLinks(text, kept)].sort((a, b) => a.line - b.line);
}
