/**
 * Source fixes applied before parsing, in one linear pass over the lines:
 * - line endings become `\n` (the parser would keep a lone `\r` inside raw HTML, and the output
 *   must not depend on how the author's editor ended lines);
 * - a link card written on one line (`<a class="dp-link-card" …><div …>…`) gets a line break
 *   after its opening tag. CommonMark starts an HTML block with an `<a>` only when the tag stands
 *   alone on its line (block type 7); otherwise the card becomes inline HTML in a paragraph and
 *   the HTML parser splits it at every `<div>` (the "Link card" island). Fenced code is left alone.
 */
const CARD_OPEN = /^( {0,3}<a\s[^<>]*\bdp-link-card\b[^<>]*>)[ \t]*(?=\S)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function prepareMarkdown(source: string): string {
  const markdown = source.includes('\r') ? source.replace(/\r\n?/g, '\n') : source;
  if (!markdown.includes('dp-link-card')) return markdown;
  const lines = markdown.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined || line.length > 100_000) continue;
    const card = CARD_OPEN.exec(line);
    if (card) lines[i] = `${card[1]}\n${line.slice(card[0].length)}`;
  }
  return lines.join('\n');
}
