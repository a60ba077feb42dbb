/**
 * The live preview opens at the place being edited: the editor sends its cursor's offset, a
 * word-like marker goes into the Markdown at the start of the text of the cursor's line (or the
 * nearest line above that holds text), and after conversion the marker becomes an empty anchor
 * the frame's address points at (#preview-cursor). The frame runs no script, so the browser's
 * own scrolling to a fragment does it. Lines where a marker would change the markup (fenced
 * code, raw HTML, tables, indented code, setext underlines) are passed over.
 */
export const PREVIEW_CURSOR_ID = 'preview-cursor';

const MARKER = 'DpPreviewCursorMark7q';
/** Heading, quote and list prefixes: the marker goes after them, so the line keeps its kind. */
const PREFIX = /^(?:\s{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+))*/;

function fencedLines(lines: string[]): boolean[] {
  const inside: boolean[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      inside.push(true);
      if (m && m[1]!.startsWith(fence)) fence = null;
    } else if (m) {
      fence = m[1]!;
      inside.push(true);
    } else inside.push(false);
  }
  return inside;
}

function takesMarker(line: string): boolean {
  const rest = line.replace(PREFIX, '');
  if (!rest.trim()) return false;
  if (/^( {4}|\t)/.test(line) && !PREFIX.exec(line)?.[0]) return false; // indented code
  return !/^\s*(<|\||[=-]{2,}\s*$|\[[^\]]*\]:)/.test(rest);
}

/** The Markdown with the marker at the cursor's line, or unchanged when no line can take it. */
export function markCursor(markdown: string, cursor: number): string {
  if (!Number.isInteger(cursor) || cursor < 0 || cursor > markdown.length) return markdown;
  const lines = markdown.split('\n');
  const fenced = fencedLines(lines);
  let at = markdown.slice(0, cursor).split('\n').length - 1;
  for (; at >= 0; at--) if (!fenced[at] && takesMarker(lines[at]!)) break;
  if (at < 0) return markdown;
  const line = lines[at]!;
  const prefix = PREFIX.exec(line)?.[0] ?? '';
  // A space after it: the line's own text (emphasis with _, say) starts a word as before.
  lines[at] = `${prefix}${MARKER} ${line.slice(prefix.length)}`;
  return lines.join('\n');
}

/** The converted HTML with the marker turned into the anchor (any other copy is dropped). */
export function placeCursorAnchor(html: string): string {
  let placed = false;
  return html.replace(new RegExp(`${MARKER} ?`, 'g'), () => {
    if (placed) return '';
    placed = true;
    return `<span id="${PREVIEW_CURSOR_ID}"></span>`;
  });
}

/** Markdown punctuation that never reaches readers as written: text is matched between it. */
const MARKUP = /[*_`[\]()#>!|~<\\]+|\s{2,}|^\s*(?:[-+]|\d{1,9}[.)])\s/g;

/**
 * Words of the cursor's line (or the nearest line above with words) that the rendered article
 * shows as written: the longest stretch between Markdown punctuation, so the saved preview can
 * open at the same place after a save or a reload (`anchorNear`). Empty when there is none.
 */
export function nearText(markdown: string, cursor: number): string {
  if (!Number.isInteger(cursor) || cursor < 0 || cursor > markdown.length) return '';
  const lines = markdown.split('\n');
  for (let at = markdown.slice(0, cursor).split('\n').length - 1; at >= 0; at--) {
    const parts = lines[at]!.split(MARKUP).map((p) => p.trim());
    const longest = parts.reduce((a, b) => (b.length > a.length ? b : a), '');
    if (longest.length >= 3) return longest.slice(0, 80);
  }
  return '';
}

/**
 * The saved article's HTML with the cursor anchor placed where `text` first appears as text
 * (never inside a tag), so the frame opens there (#preview-cursor); unchanged when it does not.
 */
export function anchorNear(html: string, text: string): string {
  if (text.length < 3) return html;
  const escapedLt = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  for (const candidate of [escapedLt, escapedLt.replace(/>/g, '&gt;').replace(/"/g, '&quot;')]) {
    for (let at = html.indexOf(candidate); at !== -1; at = html.indexOf(candidate, at + 1)) {
      if (html.lastIndexOf('<', at) <= html.lastIndexOf('>', at))
        return `${html.slice(0, at)}<span id="${PREVIEW_CURSOR_ID}"></span>${html.slice(at)}`;
    }
  }
  return html;
}
