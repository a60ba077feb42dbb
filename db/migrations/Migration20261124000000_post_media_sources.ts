import { Migration } from '@mikro-orm/migrations';

/**
 * Rehost memory: per article, which external image URL became which stored file.
 *
 * Kept in its own table rather than written into the stored Markdown: the Markdown stays
 * exactly what the author sent (the console editor shows it, and re-rendering it must not
 * depend on our own rewrites), while a re-render substitutes every remembered URL without
 * downloading it again (the contract: a stored image "is not downloaded again"). Only successes are
 * remembered, so a URL that failed is tried again by the next write that sends it.
 *
 * `source_url` is the canonical form the content pipeline reports (WHATWG `URL.href`), so
 * `//cdn/x.png` and `https://cdn/x.png` are one source. Rows never change once written (the first
 * stored copy wins), which keeps "stored html = rendering of stored markdown, title and this
 * memory" true under concurrent writes.
 */
export class Migration20261124000000_post_media_sources extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE post_media_sources (
        post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
        source_url text NOT NULL,
        media_id uuid NOT NULL REFERENCES media(id) ON DELETE CASCADE,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (post_id, source_url)
      );`);
    // Articles written before this table: their html already shows stored copies. Remember each
    // one under the URL it was downloaded from (media.source_url, the address after redirects),
    // so that re-rendering them (a title change, say) keeps those images local instead of
    // falling back to the external address. Images reached through a redirect are not found
    // this way and are downloaded again by the next write that sends their Markdown.
    this.addSql(`
      INSERT INTO post_media_sources (post_id, source_url, media_id)
      SELECT DISTINCT ON (p.id, m.source_url) p.id, m.source_url, m.id
        FROM posts p
        CROSS JOIN LATERAL regexp_matches(p.html, '/api/media/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})', 'g') AS found(id)
        JOIN media m ON m.id = found.id[1]::uuid AND m.account_id = p.account_id AND m.kind = 'image'
       WHERE p.deleted_at IS NULL AND m.source_url IS NOT NULL
       ORDER BY p.id, m.source_url, m.created_at
      ON CONFLICT DO NOTHING;`);
  }
}
