import { GENERIC_EMBED_HOSTS } from '../content/embed-allowlist';
import { htmlTags, type HtmlTag } from '../content/html-tags';

/**
 * What the sanitizer took out of an author's raw HTML, found by comparing the HTML written into
 * the Markdown with the stored body: iframes whose host is not on the embed allowlist, elements
 * that do not survive (script, style, unknown elements, whose text is kept), and attributes that
 * no element of that name keeps. Markdown syntax is ignored; HTML inside code spans and fenced
 * code is text, not markup, and is skipped. A comparison, so it names what vanished without
 * knowing each rule's reason beyond these three.
 */

const EMBED_HOSTS = new Set(GENERIC_EMBED_HOSTS);

/** Code blocks and code spans: their `<…>` is shown, not parsed. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?(^\1[^\n]*$|(?![\s\S]))/gm, '').replace(/(`+)[^`][\s\S]*?\1/g, '');
}

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

export function removedMarkup(markdown: string, storedHtml: string): string[] {
  const written = openTags(withoutCode(markdown));
  const kept = openTags(storedHtml);
  const notes: string[] = [];

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
    notes.push(
      host && !EMBED_HOSTS.has(host)
        ? `An iframe from ${host} was removed: that host is not on the embed allowlist.`
        : `An iframe (${src || 'without a src'}) was removed: embeds need an https player address of an allowlisted host inside a video or embed island.`,
    );
  }

  for (const [name, count] of writtenCount) {
    if (name === 'iframe') continue;
    const missing = count - (keptCount.get(name) ?? 0);
    if (missing <= 0) continue;
    notes.push(
      name === 'script' || name === 'style'
        ? `${missing} <${name}> element(s) removed: articles carry no scripts or styles of their own.`
        : `${missing} <${name}> element(s) removed (their text, if any, is kept): not an element articles may contain there.`,
    );
  }

  const reported = new Set<string>();
  for (const t of written) {
    const keptHere = keptAttributes.get(t.name);
    if (!keptHere) continue; // the element itself is gone, reported above
    for (const a of t.attributes.keys()) {
      const key = `${t.name} ${a}`;
      if (keptHere.has(a) || reported.has(key)) continue;
      reported.add(key);
      notes.push(
        a.startsWith('on')
          ? `The ${a} attribute on <${t.name}> was removed: articles run no scripts.`
          : `The ${a} attribute on <${t.name}> was removed: it is not one articles keep on that element.`,
      );
    }
  }
  return notes;
}
