/**
 * The seam between article writes and media: the posts service hands over the external
 * image URLs of one write (body images and cover_url, deduped) and gets back what was stored.
 * The media module implements it (rehost.ts has the rules); posts know nothing of fetching.
 */
import type { StoredImage } from '../../data/posts/writes';

export interface RehostOutcome {
  /** URL as written → the stored image. */
  stored: Record<string, StoredImage>;
  /** URLs that could not be stored (the write response's `rehost_failed`). */
  failed: string[];
  /**
   * Why each failed URL was not stored, in words safe to show its author ("address not
   * allowed", "source answered HTTP 404", "not stored: …limit reached"). Not part of the
   * REST response, which names the URLs only; the console shows it beside each URL.
   */
  causes: Record<string, string>;
  /** Why rehost stopped early, e.g. a media limit (the write response's `warnings`). */
  warnings: string[];
}

export interface Rehoster {
  rehost(accountId: string, urls: string[]): Promise<RehostOutcome>;
}

/** Until a rehoster is wired in, external images stay external and are reported as such. */
export const noRehost: Rehoster = {
  async rehost(_accountId, urls) {
    const causes = Object.fromEntries(urls.map((u) => [u, 'not copied: this write stores no images']));
    return { stored: {}, failed: urls, causes, warnings: [] };
  },
};
