/**
 * What the popularity number is (server/model/popularity.ts), in the same words under the
 * article list and in an article's readers panel, so the number is never shown bare.
 */
export function PopularityHelp({ id }: { id: string }) {
  return (
    <p className="muted" id={id}>
      Popularity: likes, twice the saves, three times the comments, plus the reads, divided by the article&apos;s age
      (hours since publishing, plus 2, to the power 1.5), so a fresh article with a few reactions ranks above an old one
      with many.
    </p>
  );
}
