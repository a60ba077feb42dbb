'use client';

import { useSyncExternalStore } from 'react';

/**
 * The article editor's state that the page's other controls read (one editor per page):
 * - whether it holds unsaved text: Publish publishes the saved text only, so it asks for a save
 *   first;
 * - how many saves it has made: a control's success message about the saved text ("Published:
 *   readers now see this version") is no longer true once the text changes, so it goes away
 *   (`useEditorChange`).
 */
let unsaved = false;
let saves = 0;
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

export function setUnsavedText(value: boolean): void {
  if (value === unsaved) return;
  unsaved = value;
  notify();
}

/** The editor saved a new working version (a save or a restore). */
export function noteSaved(): void {
  saves += 1;
  notify();
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

/** A value that changes whenever the editor's text stops being the saved one or a new one is saved. */
export function useEditorChange(): string {
  return useSyncExternalStore(
    subscribe,
    () => `${saves}:${unsaved}`,
    () => '0:false',
  );
}
