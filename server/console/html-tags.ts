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

export function htmlTags(html: string): HtmlTag[] {
  const tags: HtmlTag[] = [];
  for (const m of html.matchAll(TAG)) {
    const [whole, closing, rawName, rawAttributes, selfClosing] = m;
    if (!rawName) continue; // a comment
    const name = rawName.toLowerCase();
    const attributes = new Map<string, string>();
    for (const a of (rawAttributes ?? '').matchAll(ATTRIBUTE))
      attributes.set(a[1]!.toLowerCase(), a[2] ?? a[3] ?? a[4] ?? '');
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
