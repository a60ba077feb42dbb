/**
 * Tables: GFM tables have no `<thead>`; the header row becomes the first row of `<tbody>`
 * (its cells stay `th`). Tables are rebuilt as `table > tbody > tr > (td|th)` with nothing else
 * between the cells: text or unknown wrappers there would be foster-parented by the HTML parser
 * when the output is read back, breaking the round trip.
 */
import type { Element, ElementContent, Root } from '../hast';
import { element, rewriteElements } from '../hast';
import { markBuilt } from '../context';

function rowsOf(table: Element): Element[] {
  const rows: Element[] = [];
  const collect = (parent: Element) => {
    for (const child of parent.children) {
      if (child.type !== 'element') continue;
      if (child.tagName === 'tr') rows.push(child);
      else if (child.tagName === 'thead' || child.tagName === 'tbody') collect(child);
    }
  };
  collect(table);
  return rows;
}

function rebuildRow(row: Element): Element | undefined {
  const cells: ElementContent[] = [];
  for (const cell of row.children) {
    if (cell.type !== 'element' || (cell.tagName !== 'td' && cell.tagName !== 'th')) continue;
    cell.properties = {}; // GFM `align` is presentation; the schema keeps no cell attributes
    cells.push(markBuilt(cell));
  }
  return cells.length ? markBuilt(element('tr', {}, cells)) : undefined;
}

export default function rehypeTable() {
  return (tree: Root) => {
    rewriteElements(tree, (el) => {
      if (el.tagName !== 'table') return el;
      const rows = rowsOf(el).flatMap((row) => rebuildRow(row) ?? []);
      if (rows.length === 0) return undefined;
      return markBuilt(element('table', {}, [markBuilt(element('tbody', {}, rows))]));
    });
  };
}
