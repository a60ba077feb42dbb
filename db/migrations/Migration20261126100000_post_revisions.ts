import { Migration } from '@mikro-orm/migrations';

/**
 * A history of every save of an article's working version (server/services/posts/revisions.ts reads
 * it). The article's row is its newest version; a trigger on `posts` keeps the versions each
 * save replaced: on a save that changes what a reader would see (title, subtitle, slug, tags,
 * Markdown or its HTML; a save that moves `updated_at` only keeps nothing) it copies the row as
 * it was, and in the same statement prunes the article's older versions beyond the newest 49,
 * so an article has at most 50 versions, its row included (REVISIONS_KEPT). An article never
 * edited costs nothing. Being in the database, it holds for every writer (REST, console, a
 * restore) and commits or rolls back with the save itself, at no extra round trip. Deleting an
 * article drops its history.
 *
 * `posts.saved_by_token_id` is the token the last save came through (set by the create and
 * edit statements); each revision keeps it, so the console can name the token of each save.
 */
export class Migration20261126100000_post_revisions extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE posts ADD COLUMN saved_by_token_id uuid NULL;');
    this.addSql(`
      CREATE TABLE post_revisions (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
        saved_at timestamptz(3) NOT NULL,
        token_id uuid REFERENCES api_tokens(id) ON DELETE SET NULL,
        title text NOT NULL,
        subtitle text,
        slug text NOT NULL,
        tags jsonb NOT NULL,
        markdown text NOT NULL,
        html text NOT NULL
      );`);
    this.addSql('CREATE INDEX post_revisions_post ON post_revisions (post_id, saved_at DESC, id DESC);');
    this.addSql(`
      CREATE FUNCTION record_post_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO post_revisions (post_id, saved_at, token_id, title, subtitle, slug, tags, markdown, html)
        VALUES (OLD.id, OLD.updated_at, OLD.saved_by_token_id, OLD.title, OLD.subtitle, OLD.slug, OLD.tags,
                OLD.markdown, OLD.html);
        DELETE FROM post_revisions WHERE id IN (
          SELECT id FROM post_revisions WHERE post_id = OLD.id ORDER BY saved_at DESC, id DESC OFFSET 49);
        RETURN NULL;
      END $$;`);
    this.addSql(`
      CREATE FUNCTION drop_post_revisions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM post_revisions WHERE post_id = NEW.id;
        RETURN NULL;
      END $$;`);
    this.addSql(`
      CREATE TRIGGER posts_revision_on_save AFTER UPDATE ON posts FOR EACH ROW
        WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at AND NEW.deleted_at IS NULL
              AND (OLD.title, OLD.subtitle, OLD.slug, OLD.tags, OLD.markdown, OLD.html)
                  IS DISTINCT FROM (NEW.title, NEW.subtitle, NEW.slug, NEW.tags, NEW.markdown, NEW.html))
        EXECUTE FUNCTION record_post_revision();`);
    this.addSql(`
      CREATE TRIGGER posts_revisions_on_delete AFTER UPDATE ON posts FOR EACH ROW
        WHEN (OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL)
        EXECUTE FUNCTION drop_post_revisions();`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER posts_revisions_on_delete ON posts;');
    this.addSql('DROP TRIGGER posts_revision_on_save ON posts;');
    this.addSql('DROP FUNCTION drop_post_revisions();');
    this.addSql('DROP FUNCTION record_post_revision();');
    this.addSql('DROP TABLE post_revisions;');
    this.addSql('ALTER TABLE posts DROP COLUMN saved_by_token_id;');
  }
}
