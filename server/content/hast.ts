/** Small helpers over hast nodes used by the island plugins. */
import type { Element, ElementContent, Parents, Properties, Root, RootContent, Text } from 'hast';

export type { Element, ElementContent, Parents, Properties, Root, RootContent, Text };

function classList(node: Element): string[] {
  const value = node.properties.className;
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? (value as string).split(/\s+/) : [];
}

export function hasClass(node: Element, name: string): boolean {
  return classList(node).includes(name);
}

export function element(tagName: string, properties: Properties = {}, children: ElementContent[] = []): Element {
  return { type: 'element', tagName, properties, children };
}

export function text(value: string): Text {
  return { type: 'text', value };
}

export function textContent(node: ElementContent | Root): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element' || node.type === 'root') {
    let out = '';
    for (const child of node.children) out += textContent(child as ElementContent);
    return out;
  }
  return '';
}

export function isWhitespaceText(node: unknown): boolean {
  return (
    typeof node === 'object' &&
    node !== null &&
    (node as Text).type === 'text' &&
    /^[ \t\n\f\r]*$/.test((node as Text).value)
  );
}

/** Depth-first pre-order list of element descendants (not the node itself). */
export function descendants(node: Parents, stopAt?: (el: Element) => boolean): Element[] {
  const found: Element[] = [];
  const walk = (parent: Parents) => {
    for (const child of parent.children) {
      if (child.type !== 'element') continue;
      found.push(child);
      if (!stopAt?.(child)) walk(child);
    }
  };
  walk(node);
  return found;
}

/** Every tag name in the tree, in one walk (which island plugins have anything to do; pipeline.ts). */
export function tagNames(tree: Root): Set<string> {
  const names = new Set<string>();
  const walk = (parent: Parents) => {
    for (const child of parent.children) {
      if (child.type !== 'element') continue;
      names.add(child.tagName);
      walk(child);
    }
  };
  walk(tree);
  return names;
}

/**
 * Rewrite every element bottom-up: `fn` returns the replacement nodes for an element
 * (itself, several nodes, or none). Iterative over children so plugins stay simple.
 * A parent's children are copied only once one of them changes: most walks change nothing.
 */
export function rewriteElements(
  parent: Parents,
  fn: (el: Element, parent: Parents) => ElementContent[] | Element | undefined,
): void {
  const children = parent.children;
  let next: RootContent[] | undefined;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    if (child.type !== 'element') {
      next?.push(child);
      continue;
    }
    rewriteElements(child, fn);
    const result = fn(child, parent);
    if (result === child) {
      next?.push(child);
      continue;
    }
    next ??= children.slice(0, i);
    if (result === undefined) continue;
    if (Array.isArray(result)) next.push(...result);
    else next.push(result);
  }
  if (next) parent.children = next as typeof parent.children;
}
