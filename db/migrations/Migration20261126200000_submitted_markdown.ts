import { Migration } from '@mikro-orm/migrations';

/**
 * The Markdown of the version an author submitted for moderation, so the moderation queue can
 * say what the sanitizer removed from it (server/console/removed-markup.ts compares a text with
 * its stored body; `submitted_version` keeps the body only, and the working Markdown may change
 * while the submission waits).
 *
 * A trigger keeps it, like the history's (Migration20261126100000_post_revisions): whenever a
 * statement changes `submitted_version`, the row's Markdown at that moment is the submitted text
 * (publish snapshots the working version of the same row, under its lock), and a decision,
 * an unpublish or anything else that clears the submission clears it too. So every writer (REST,
 * console, CLI, an instance of the previous release during a rolling start) stores it without a
 * change to the services, at no extra round trip. Articles waiting when this runs are not filled
 * in: their Markdown may have been edited since they were submitted, and a wrong list is worse
 * than none (the queue says it cannot list them).
 */
export class Migration20261126200000_submitted_markdown extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE posts ADD COLUMN submitted_markdown text NULL;');
    this.addSql(`
      CREATE FUNCTION keep_submitted_markdown() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.submitted_markdown := CASE WHEN NEW.submitted_version IS NULL THEN NULL ELSE NEW.markdown END;
        RETURN NEW;
      END $$;`);
    this.addSql(`
      CREATE TRIGGER posts_submitted_markdown BEFORE UPDATE OF submitted_version ON posts FOR EACH ROW
        WHEN (OLD.submitted_version IS DISTINCT FROM NEW.submitted_version)
        EXECUTE FUNCTION keep_submitted_markdown();`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER posts_submitted_markdown ON posts;');
    this.addSql('DROP FUNCTION keep_submitted_markdown();');
    this.addSql('ALTER TABLE posts DROP COLUMN submitted_markdown;');
  }
}
