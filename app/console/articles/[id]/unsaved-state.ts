'use client';

import { useSyncExternalStore } from 'react';

/**
 * Whether the article editor on this page holds unsaved text, for the page's other controls
 * (Publish publishes the saved text only, so it asks for a save first). One editor per page.
 */
let unsaved = false;
const listeners = new Set<() => void>();

export function setUnsavedText(value: boolean): void {
  if (value === unsaved) return;
  unsaved = value;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useUnsavedText(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => unsaved,
    () => false,
  );
}
