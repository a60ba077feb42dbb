import { canonicalPath } from './post-view';

/**
 * The domain's announcement that what a public path shows has changed (an article published,
 * unpublished, deleted, decided by a moderator, its slug moved; an account and its media gone).
 * The services announce it after the transaction that made the change commits; they do not know
 * who listens. The runtime (and the CLI) install the listener that purges shared caches
 * (server/cache-purge.ts), so every caller of the services — REST, console, CLI — purges alike.
 *
 * The listener lives on globalThis: the launcher's bundle and the code Next bundles for the
 * console are separate module copies in one process, and both must reach the one listener.
 */
export type PublicChangeListener = (paths: string[]) => void;

const holder = globalThis as unknown as { __publicChangeListener?: PublicChangeListener };

/** Installs (or, with undefined, removes) the process's listener. */
export function listenToPublicChanges(listener: PublicChangeListener | undefined): void {
  holder.__publicChangeListener = listener;
}

/**
 * Tells the listener which public paths changed; duplicates and absent paths are dropped. Never
 * throws: the change is committed, and a failing listener must not turn it into an error.
 */
export function announcePublicChange(paths: readonly (string | null | undefined)[]): void {
  const listener = holder.__publicChangeListener;
  const unique = [...new Set(paths.filter((p): p is string => typeof p === 'string' && p !== ''))];
  if (!listener || unique.length === 0) return;
  try {
    listener(unique);
  } catch {
    // The listener reports its own failures; the author's change stands.
  }
}

/** The public path of a published snapshot's slug, or null when nothing was public. */
export function publicPathOf(slug: string | null | undefined, publicId: string): string | null {
  return slug ? canonicalPath(slug, publicId) : null;
}
