import { Migration } from '@mikro-orm/migrations';

/**
 * The name a file had on the maintainer's computer when it was added in the console, so the
 * editor's media library can label it by name after a reload. Null for files stored through
 * the API or before this column (their label falls back to the address they came from).
 */
export class Migration20261125010000_media_file_names extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE media ADD COLUMN file_name text NULL;');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE media DROP COLUMN file_name;');
  }
}
