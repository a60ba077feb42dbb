import { Migration } from '@mikro-orm/migrations';

/**
 * Autosave in the console editor, and the history it leaves (server/services/posts/revisions.ts).
 *
 * The rule: consecutive autosaves of one editor visit fold into ONE history entry, the newest
 * autosave's version, until a manual save, a publication move (publish, unpublish, a moderator's
 * decision), an API write, an autosave of another visit, or 10 minutes since that run's first
 * autosave (AUTOSAVE_RUN_MINUTES, server/data/posts/writes.ts). The version before the run and
 * the run's last autosave each stay as entries of their own. (The other rule of autosave, that
 * it never takes more than half of a minute's write limit, is the console's: server/console/
 * console-charges.ts; nothing of it is in the schema.)
 *
 * `posts.autosave_visit` is the editor visit whose autosave made the row's version (NULL for
 * every other save), `posts.autosave_since` when that visit's run began (NULL: no run open). The
 * edit statement (writes.ts UPDATE_POST) sets both on every save, so any writer that is not an
 * autosave (REST PATCH, a manual console save, a restore) ends the run; a publication move
 * (publication.ts APPLY) ends it by clearing `autosave_since` only, as the version is still the
 * autosave's. The history's trigger does not record the version a save replaces when that save
 * continues the same run (same visit, same start, both set): the replaced autosave folds into
 * the new one. `post_revisions.autosaved` says whether a kept version was an autosave's.
 *
 * During a rolling start an instance of the previous release sets neither column: its save or
 * publication move leaves an autosaved row's visit as it was, so that save, or the visit's next
 * autosave, continues the run as if the save or the move had not been made. Only an article
 * autosaved in the new console and written through an older instance in that window is affected,
 * and only in how its history is grouped (no current version is lost).
 */
export class Migration20261128200000_autosave_runs extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'ALTER TABLE posts ADD COLUMN autosave_visit uuid NULL, ADD COLUMN autosave_since timestamptz(3) NULL;',
    );
    this.addSql('ALTER TABLE post_revisions ADD COLUMN autosaved boolean NOT NULL DEFAULT false;');
    this.addSql(`
      CREATE OR REPLACE FUNCTION record_post_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO post_revisions (post_id, saved_at, token_id, title, subtitle, slug, tags, markdown, html,
                                    restored_from, autosaved)
        VALUES (OLD.id, OLD.updated_at, OLD.saved_by_token_id, OLD.title, OLD.subtitle, OLD.slug, OLD.tags,
                OLD.markdown, OLD.html, OLD.restored_from, OLD.autosave_visit IS NOT NULL);
        DELETE FROM post_revisions WHERE id IN (
          SELECT id FROM post_revisions WHERE post_id = OLD.id ORDER BY saved_at DESC, id DESC OFFSET 49);
        RETURN NULL;
      END $$;`);
    // The trigger's condition gains one clause: not when the new save continues OLD's run (both
    // columns equal and set; `coalesce` because a NULL on either side must record, not skip).
    this.addSql('DROP TRIGGER posts_revision_on_save ON posts;');
    this.addSql(`
      CREATE TRIGGER posts_revision_on_save AFTER UPDATE ON posts FOR EACH ROW
        WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at AND NEW.deleted_at IS NULL
              AND (OLD.title, OLD.subtitle, OLD.slug, OLD.tags, OLD.markdown, OLD.html)
                  IS DISTINCT FROM (NEW.title, NEW.subtitle, NEW.slug, NEW.tags, NEW.markdown, NEW.html)
              AND NOT coalesce(NEW.autosave_visit = OLD.autosave_visit
                               AND NEW.autosave_since = OLD.autosave_since, false))
        EXECUTE FUNCTION record_post_revision();`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER posts_revision_on_save ON posts;');
    this.addSql(`
      CREATE TRIGGER posts_revision_on_save AFTER UPDATE ON posts FOR EACH ROW
        WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at AND NEW.deleted_at IS NULL
              AND (OLD.title, OLD.subtitle, OLD.slug, OLD.tags, OLD.markdown, OLD.html)
                  IS DISTINCT FROM (NEW.title, NEW.subtitle, NEW.slug, NEW.tags, NEW.markdown, NEW.html))
        EXECUTE FUNCTION record_post_revision();`);
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
    this.addSql('ALTER TABLE post_revisions DROP COLUMN autosaved;');
    this.addSql('ALTER TABLE posts DROP COLUMN autosave_since, DROP COLUMN autosave_visit;');
  }
}
