/**
 * Start and end tags of an HTML fragment, read with a tokenizer that understands tags, quoted
 * attributes and comments and nothing more. Enough for the content pipeline's serialized output
 * and for the raw HTML an author writes into Markdown; not a validating parser.
 */
export interface HtmlTag {
  name: string;
  closing: boolean;
  /** A void element (`<img>`) or one written self-closing (`<br/>`). */
  empty: boolean;
  /** Attribute values with character references decoded. */
  attributes: Map<string, string>;
  /** Offset of the tag in the text, and its length. */
  index: number;
  length: number;
}

const TAG =
  /<(\/?)([a-zA-Z][\w-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>|<!--[\s\S]*?-->/g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Character references in an attribute value, so `&amp;` and `&#x26;` compare equal. */
function decode(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (whole, ref: string) => {
    const r = ref.toLowerCase();
    if (r.startsWith('#x')) return String.fromCodePoint(parseInt(r.slice(2), 16));
    if (r.startsWith('#')) return String.fromCodePoint(parseInt(r.slice(1), 10));
    return NAMED[r] ?? whole;
  });
}

export function htmlTags(html: string): HtmlTag[] {
  const tags: HtmlTag[] = [];
  for (const m of html.matchAll(TAG)) {
    const [whole, closing, rawName, rawAttributes, selfClosing] = m;
    if (!rawName) continue; // a comment
    const name = rawName.toLowerCase();
    const attributes = new Map<string, string>();
    for (const a of (rawAttributes ?? '').matchAll(ATTRIBUTE))
      attributes.set(a[1]!.toLowerCase(), decode(a[2] ?? a[3] ?? a[4] ?? ''));
    tags.push({
      name,
      closing: closing === '/',
      empty: VOID_ELEMENTS.has(name) || selfClosing === '/',
      attributes,
      index: m.index,
      length: whole.length,
    });
  }
  return tags;
}
