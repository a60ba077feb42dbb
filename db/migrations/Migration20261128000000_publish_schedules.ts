import { Migration } from '@mikro-orm/migrations';

/**
 * Scheduled publishing (console): at most one schedule per article. `publish_at` is the time the
 * writer chose; `attempt_at` is when the next attempt is due (the same, or the next minute while
 * the account's publish limit is spent); `note` says why an attempt did not publish, and
 * `failed` that no attempt will be made again until the writer schedules anew. Instances claim
 * due rows with `FOR UPDATE SKIP LOCKED` and publish in the transaction that deletes the row, so
 * an article is published exactly once whatever the number of instances (server/services/
 * scheduled-publishing.ts). The article's REST state does not change: it is a draft until then.
 */
export class Migration20261128000000_publish_schedules extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE publish_schedules (
        post_id uuid PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        publish_at timestamptz NOT NULL,
        attempt_at timestamptz NOT NULL,
        note text NULL,
        failed boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      );`);
    this.addSql('CREATE INDEX publish_schedules_due ON publish_schedules (attempt_at) WHERE NOT failed;');
    this.addSql('CREATE INDEX publish_schedules_account ON publish_schedules (account_id);');
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE publish_schedules;');
  }
}
