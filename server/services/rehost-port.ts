/**
 * The seam between article writes and media: the posts service hands over the external
 * image URLs of one write (body images and cover_url, deduped) and gets back what was stored.
 * The media module implements it (rehost.ts has the rules); posts know nothing of fetching.
 */
export interface StoredImage {
  id: string;
  width: number;
  height: number;
}

export interface RehostOutcome {
  /** URL as written → the stored image. */
  stored: Record<string, StoredImage>;
  /** URLs that could not be stored (the write response's `rehost_failed`). */
  failed: string[];
  /** Why rehost stopped early, e.g. a media limit (the write response's `warnings`). */
  warnings: string[];
}

export interface Rehoster {
  rehost(accountId: string, urls: string[]): Promise<RehostOutcome>;
}

/** Until a rehoster is wired in, external images stay external and are reported as such. */
export const noRehost: Rehoster = {
  async rehost(_accountId, urls) {
    return { stored: {}, failed: urls, warnings: [] };
  },
};
