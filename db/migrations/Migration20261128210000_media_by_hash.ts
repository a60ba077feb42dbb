import { Migration } from '@mikro-orm/migrations';

/**
 * The console's upload finds a file already in the author's library by its stored bytes
 * (server/data/media-rows.ts STORED_COPY: account, SHA-256, kind) before storing it again. Without an
 * index that read went through all of the account's files; with this one it reads the few rows
 * of that hash.
 */
export class Migration20261128210000_media_by_hash extends Migration {
  override async up(): Promise<void> {
    this.addSql('CREATE INDEX media_account_sha256 ON media (account_id, sha256);');
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX media_account_sha256;');
  }
}
