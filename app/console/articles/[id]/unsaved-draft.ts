import type { EditorFields } from '@/server/console/editor-fields';

/**
 * Unsaved editor text in this tab's session storage, so a reload (or a crash of the tab's page)
 * does not lose it. Only the article's own fields and the version they were based on are
 * stored: never a token, a session id or a CSRF token. Session storage ends with the tab, so a
 * shared computer does not keep drafts for the next person.
 */
export interface UnsavedDraft {
  version: string;
  fields: EditorFields;
}

const FIELDS = ['title', 'subtitle', 'slug', 'tags', 'markdown'] as const;

function key(postId: string): string {
  return `console-unsaved-article:${postId}`;
}

export function readDraft(postId: string): UnsavedDraft | null {
  try {
    const raw = window.sessionStorage.getItem(key(postId));
    if (!raw) return null;
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { version, fields } = parsed as { version?: unknown; fields?: Record<string, unknown> };
    if (typeof version !== 'string' || typeof fields !== 'object' || fields === null) return null;
    if (!FIELDS.every((f) => typeof fields[f] === 'string')) return null;
    return { version, fields: Object.fromEntries(FIELDS.map((f) => [f, fields[f]])) as unknown as EditorFields };
  } catch {
    return null; // storage disabled or a damaged entry: nothing to restore
  }
}

export function writeDraft(postId: string, draft: UnsavedDraft): void {
  const fields = Object.fromEntries(FIELDS.map((f) => [f, draft.fields[f]]));
  try {
    window.sessionStorage.setItem(key(postId), JSON.stringify({ version: draft.version, fields }));
  } catch {
    // Storage full or disabled: the text is still in the form, only a reload would lose it.
  }
}

export function clearDraft(postId: string): void {
  try {
    window.sessionStorage.removeItem(key(postId));
  } catch {
    // nothing stored
  }
}
