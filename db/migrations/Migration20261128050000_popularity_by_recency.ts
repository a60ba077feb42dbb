import { Migration } from '@mikro-orm/migrations';

/**
 * The console's popularity sort breaks ties newest first (server/data/posts/reads.ts `ORDER`):
 * its index takes the creation time between the score and the id, so a page is still read in
 * order and stopped after 20 (replaces Migration20261126100100_article_search's index).
 */
export class Migration20261128050000_popularity_by_recency extends Migration {
  override async up(): Promise<void> {
    this.addSql('DROP INDEX IF EXISTS posts_author_popularity;');
    this.addSql(
      'CREATE INDEX posts_author_popularity ON posts (account_id, popularity DESC, created_at DESC, id DESC) WHERE deleted_at IS NULL;',
    );
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX posts_author_popularity;');
    this.addSql(
      'CREATE INDEX posts_author_popularity ON posts (account_id, popularity DESC, id DESC) WHERE deleted_at IS NULL;',
    );
  }
}
