import { Migration } from '@mikro-orm/migrations';

/**
 * Which saves were restores, so the console's history can say "Restored from <time>" (server/
 * services/posts/revisions.ts). `restored_from` is the time of the version a restore saved again: on
 * the article's row while that restore is the working version, and on its copy in
 * `post_revisions` once a later save replaced it (the history's trigger copies it with the rest
 * of the version). The REST contract does not show it (no AuthorPost column: rows.ts).
 *
 * The restore labels the row after its save, in a statement that does not move `updated_at`
 * (a restore is an ordinary save, PATCH's own). A trigger clears the label on any save that
 * makes a new version (the same condition the history records one on: `updated_at` moves and
 * what a reader would see changed), unless that statement set the label itself. Being in the
 * database, it holds for every writer (REST, console, an instance of the previous release during
 * a rolling start), and a save that changes nothing a reader sees (the cover alone, the same
 * text again) keeps it, as the version it describes is still the restored one.
 */
export class Migration20261128100000_restored_from extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE posts ADD COLUMN restored_from timestamptz(3) NULL;');
    this.addSql('ALTER TABLE post_revisions ADD COLUMN restored_from timestamptz(3) NULL;');
    this.addSql(`
      CREATE OR REPLACE FUNCTION record_post_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO post_revisions (post_id, saved_at, token_id, title, subtitle, slug, tags, markdown, html,
                                    restored_from)
        VALUES (OLD.id, OLD.updated_at, OLD.saved_by_token_id, OLD.title, OLD.subtitle, OLD.slug, OLD.tags,
                OLD.markdown, OLD.html, OLD.restored_from);
        DELETE FROM post_revisions WHERE id IN (
          SELECT id FROM post_revisions WHERE post_id = OLD.id ORDER BY saved_at DESC, id DESC OFFSET 49);
        RETURN NULL;
      END $$;`);
    this.addSql(`
      CREATE FUNCTION clear_post_restored_from() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.restored_from := NULL;
        RETURN NEW;
      END $$;`);
    // Only rows that carry a label pay for the function: every other save skips it in the WHEN.
    this.addSql(`
      CREATE TRIGGER posts_restored_from_on_save BEFORE UPDATE ON posts FOR EACH ROW
        WHEN (OLD.restored_from IS NOT NULL AND NEW.restored_from IS NOT DISTINCT FROM OLD.restored_from
              AND OLD.updated_at IS DISTINCT FROM NEW.updated_at
              AND (OLD.title, OLD.subtitle, OLD.slug, OLD.tags, OLD.markdown, OLD.html)
                  IS DISTINCT FROM (NEW.title, NEW.subtitle, NEW.slug, NEW.tags, NEW.markdown, NEW.html))
        EXECUTE FUNCTION clear_post_restored_from();`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER posts_restored_from_on_save ON posts;');
    this.addSql('DROP FUNCTION clear_post_restored_from();');
    this.addSql(`
      CREATE OR REPLACE FUNCTION record_post_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO post_revisions (post_id, saved_at, token_id, title, subtitle, slug, tags, markdown, html)
        VALUES (OLD.id, OLD.updated_at, OLD.saved_by_token_id, OLD.title, OLD.subtitle, OLD.slug, OLD.tags,
                OLD.markdown, OLD.html);
        DELETE FROM post_revisions WHERE id IN (
          SELECT id FROM post_revisions WHERE post_id = OLD.id ORDER BY saved_at DESC, id DESC OFFSET 49);
        RETURN NULL;
      END $$;`);
    this.addSql('ALTER TABLE post_revisions DROP COLUMN restored_from;');
    this.addSql('ALTER TABLE posts DROP COLUMN restored_from;');
  }
}
