'use client';

import { useEffect, useRef, useState } from 'react';

/**
 * Autosave (README "Autosave"): the working version saves itself once typing has stopped for
 * AUTOSAVE_DELAY_MS, through the same save as the Save button (only the fields changed, If-Match
 * the version they are based on, the same conflict view when the article changed elsewhere).
 *
 * - The saves of one visit of the editor carry the visit's id, so the server folds a run of them
 *   into one history entry (Migration20261128200000_autosave_runs).
 * - At most one autosave every AUTOSAVE_MIN_GAP_MS, and the server takes one only while more than
 *   half of the minute's write limit is left (server/admission/window-charge.ts); when it is not,
 *   the answer says how long until the next minute, and the editor waits that long.
 * - Nothing is tried while a save is under way, while the text is still loading, after a refused
 *   save (conflict or problem: the writer decides), or when there is nothing to save. Unsaved text
 *   brought back after a reload is not saved by itself either (the editor offers to discard it):
 *   it waits, like a refused one, until the writer changes something.
 * - A writer who prefers to save by hand turns it off in the action bar; the choice is kept in
 *   this browser (AUTOSAVE_PREFERENCE), for every article.
 */
const AUTOSAVE_DELAY_MS = 3_000;
const AUTOSAVE_MIN_GAP_MS = 10_000;
/** localStorage: 'off' when the writer turned autosave off in this browser. */
const AUTOSAVE_PREFERENCE = 'console.autosave';

/** Idle, or waiting for the next minute's write window (until: epoch ms). */
export type AutosaveState = { kind: 'idle' } | { kind: 'waiting'; until: number };

/** What an autosave came back with: a wait asked by the server, or a refusal now on screen. */
export interface AutosaveResult {
  waitSeconds?: number;
  refused?: boolean;
}

export function useAutosave({
  dirty,
  blocked,
  restored,
  changeKey,
  save,
}: {
  /** Unsaved changes exist. */
  dirty: boolean;
  /** A save is under way, the text is loading, or a refused save is on screen. */
  blocked: boolean;
  /** The unsaved text on screen was brought back after a reload, not typed in this visit. */
  restored: boolean;
  /** Changes whenever the writer changes something (the fields object). */
  changeKey: unknown;
  /** Sends the autosave with this visit's id. */
  save: (visit: string) => Promise<AutosaveResult>;
}) {
  const [visit] = useState(() => crypto.randomUUID());
  const [state, setState] = useState<AutosaveState>({ kind: 'idle' });
  // The change a refused autosave was made of, or the text restored after a reload: not saved by
  // itself until the writer changes something.
  const [refused, setRefused] = useState<unknown>(null);
  const [wasRestored, setWasRestored] = useState(restored);
  if (restored !== wasRestored) {
    setWasRestored(restored);
    if (restored) setRefused(changeKey);
  }
  const [enabled, setEnabled] = useState(true);
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- once, after hydration: storage is the browser's
    if (readPreference() === 'off') setEnabled(false);
  }, []);
  const toggle = (on: boolean) => {
    setEnabled(on);
    try {
      window.localStorage.setItem(AUTOSAVE_PREFERENCE, on ? 'on' : 'off');
    } catch {
      // storage disabled: the choice holds for this page only
    }
  };
  const lastSent = useRef(0);
  const latestSave = useRef(save);
  useEffect(() => {
    latestSave.current = save;
  });

  useEffect(() => {
    if (!enabled || !dirty || blocked || refused === changeKey) return;
    const now = Date.now();
    const waitUntil = state.kind === 'waiting' ? state.until : 0;
    const at = Math.max(now + AUTOSAVE_DELAY_MS, lastSent.current + AUTOSAVE_MIN_GAP_MS, waitUntil);
    const timer = setTimeout(() => {
      lastSent.current = Date.now();
      void latestSave.current(visit).then(({ waitSeconds, refused: wasRefused }) => {
        if (wasRefused) setRefused(changeKey);
        setState(waitSeconds ? { kind: 'waiting', until: Date.now() + waitSeconds * 1000 } : { kind: 'idle' });
      });
    }, at - now);
    return () => clearTimeout(timer);
  }, [enabled, dirty, blocked, changeKey, refused, visit, state]);

  return { visit, state, enabled, toggle };
}

function readPreference(): string | null {
  try {
    return window.localStorage.getItem(AUTOSAVE_PREFERENCE);
  } catch {
    return null;
  }
}
