export interface RenderInput {
  /** GFM + HTML islands, as sent by the author. */
  markdown: string;
  /** Used for the inserted H1 when the markdown has none (an article has exactly one H1). */
  title: string;
  /** External image URL (as found) -> local '/api/media/<uuid>' to substitute in img src. */
  rehosted?: Record<string, string>;
  /**
   * Origins of this service's public pages (PUBLIC_ORIGIN): an image there outside
   * `/api/media/` is removed (urls.ts `pointsAtServiceOutsideMedia`); reader beacon paths are
   * removed on any host.
   */
  selfOrigins?: readonly string[];
}

export interface RenderOutput {
  /** Sanitized HTML; a fixpoint: rendering it again as `markdown` gives the same `html`. */
  html: string;
  /** External http(s) body image URLs still present after `rehosted`, in document order, deduped. */
  externalImages: string[];
  /**
   * Each of `externalImages` -> the URL(s) as the author wrote them (`//cdn/x.png`,
   * `http://[::1]/x.png`, non-ASCII paths…), for reporting back in the author's own terms.
   */
  writtenAs: Record<string, string[]>;
  /**
   * Image addresses removed because they point at this service outside its stored files (an
   * `img` with its element; a `srcset` candidate, a `poster`, a style's `url()`… with their
   * attribute; plugins/self-addresses.ts), each as written, once, in document order.
   */
  selfImages: string[];
}
