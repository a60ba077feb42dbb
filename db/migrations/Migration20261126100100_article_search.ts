import { Migration } from '@mikro-orm/migrations';

/**
 * The console's article list at 100,000 articles of one author (server/console/article-search.ts,
 * measured by bench/console-search.ts): one index per sort the list offers besides creation
 * (posts_author_feed has that one), so a page is read in order and stops after 20 rows instead of
 * sorting every article; and a GIN index of the words of title, slug and tag names for search
 * (the expression is the list query's SEARCH_DOCUMENT, character for character).
 */
export class Migration20261126100100_article_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'CREATE INDEX posts_author_updated ON posts (account_id, updated_at DESC, id DESC) WHERE deleted_at IS NULL;',
    );
    this.addSql(
      'CREATE INDEX posts_author_published ON posts (account_id, published_at DESC NULLS LAST, id DESC) WHERE deleted_at IS NULL;',
    );
    this.addSql(
      'CREATE INDEX posts_author_popularity ON posts (account_id, popularity DESC, id DESC) WHERE deleted_at IS NULL;',
    );
    this.addSql(
      `CREATE INDEX posts_search ON posts USING gin ((to_tsvector('simple', title || ' ' || replace(slug, '-', ' ') || ' ' || jsonb_path_query_array(tags, '$[*].name')::text))) WHERE deleted_at IS NULL;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX posts_search;');
    this.addSql('DROP INDEX posts_author_popularity;');
    this.addSql('DROP INDEX posts_author_published;');
    this.addSql('DROP INDEX posts_author_updated;');
  }
}
