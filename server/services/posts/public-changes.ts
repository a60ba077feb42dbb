import { canonicalPath } from './post-view';

/**
 * The domain's announcement that what a public path shows has changed (an article published,
 * unpublished, deleted, decided by a moderator, its slug moved; an account and its media gone).
 * The services announce it after the statement or transaction that made the change commits; they
 * do not know who listens. They are handed the announcer (`AnnouncePublicChange`) with the rest
 * of their context; the composition root makes it with the listener that purges shared caches
 * (server/runtime/cache-purge.ts), so every caller of the services — REST, console, CLI — purges alike.
 */
export type AnnouncePublicChange = (paths: readonly (string | null | undefined)[]) => void;

/**
 * The announcer around a listener: duplicates and absent paths are dropped, and it never
 * throws (the change is committed; a failing listener must not turn it into an error). Without
 * a listener (no cache to purge, tests) it announces to no one.
 */
export function publicChangeAnnouncer(listener?: (paths: string[]) => void): AnnouncePublicChange {
  return (paths) => {
    const unique = [...new Set(paths.filter((p): p is string => typeof p === 'string' && p !== ''))];
    if (!listener || unique.length === 0) return;
    try {
      listener(unique);
    } catch {
      // The listener reports its own failures; the author's change stands.
    }
  };
}

/** The public path of a published snapshot's slug, or null when nothing was public. */
export function publicPathOf(slug: string | null | undefined, publicId: string): string | null {
  return slug ? canonicalPath(slug, publicId) : null;
}
