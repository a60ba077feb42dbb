import { Migration } from '@mikro-orm/migrations';

/**
 * Initial schema. Written by hand (reviewed SQL beats generated diffs for a first schema);
 * later migrations may be generated. Timestamps are timestamptz(3): JS Dates carry
 * milliseconds, so cursor values round-trip exactly.
 */
export class Migration20261122000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY,
        handle text NOT NULL,
        is_admin boolean NOT NULL DEFAULT false,
        is_moderated boolean NOT NULL DEFAULT false,
        read_per_min integer NOT NULL DEFAULT 60,
        write_per_min integer NOT NULL DEFAULT 30,
        publish_per_min integer NOT NULL DEFAULT 1,
        media_per_min integer NOT NULL DEFAULT 10,
        daily_media_bytes bigint NOT NULL DEFAULT 209715200,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        deleted_at timestamptz(3)
      );`);
    this.addSql(`CREATE UNIQUE INDEX accounts_handle_live ON accounts (lower(handle)) WHERE deleted_at IS NULL;`);

    this.addSql(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id),
        name text NOT NULL,
        secret_hash bytea NOT NULL,
        prefix text NOT NULL,
        last_four text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        last_used_at timestamptz(3),
        revoked_at timestamptz(3)
      );`);
    this.addSql(`CREATE UNIQUE INDEX api_tokens_secret_hash ON api_tokens (secret_hash);`);
    this.addSql(`CREATE INDEX api_tokens_account ON api_tokens (account_id);`);

    this.addSql(`
      CREATE TABLE media (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id),
        kind text NOT NULL,
        mime_type text NOT NULL,
        byte_size bigint NOT NULL,
        width integer NOT NULL,
        height integer NOT NULL,
        storage_key text NOT NULL,
        sha256 text NOT NULL,
        poster_media_id uuid REFERENCES media(id),
        source_url text,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      );`);
    this.addSql(`CREATE INDEX media_account ON media (account_id, created_at DESC);`);

    this.addSql(`
      CREATE TABLE tags (
        id uuid PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        name text NOT NULL
      );`);

    this.addSql(`
      CREATE TABLE posts (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id),
        public_id text NOT NULL UNIQUE,
        slug text NOT NULL,
        title text NOT NULL,
        subtitle text,
        markdown text NOT NULL,
        html text NOT NULL,
        tags jsonb NOT NULL DEFAULT '[]',
        cover_asset_id uuid REFERENCES media(id),
        cover_url text,
        cover_width integer,
        cover_height integer,
        status text NOT NULL CHECK (status IN ('draft', 'pending_moderation', 'published')),
        has_unpublished_changes boolean NOT NULL DEFAULT false,
        published_at timestamptz(3),
        published_version jsonb,
        submitted_version jsonb,
        moderation_note text,
        like_count integer NOT NULL DEFAULT 0,
        comment_count integer NOT NULL DEFAULT 0,
        save_count integer NOT NULL DEFAULT 0,
        popularity integer NOT NULL DEFAULT 0,
        impression_count integer NOT NULL DEFAULT 0,
        open_count integer NOT NULL DEFAULT 0,
        read_count integer NOT NULL DEFAULT 0,
        complete_count integer NOT NULL DEFAULT 0,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        deleted_at timestamptz(3)
      );`);
    // GET /posts: (created_at, id) descending per author, optionally per status (contract: "GET /posts").
    this.addSql(
      `CREATE INDEX posts_author_feed ON posts (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;`,
    );
    this.addSql(
      `CREATE INDEX posts_author_status_feed ON posts (account_id, status, created_at DESC, id DESC) WHERE deleted_at IS NULL;`,
    );
    // A slug is unique per author among live articles; soft-deleted ones free it.
    this.addSql(`CREATE UNIQUE INDEX posts_author_slug_live ON posts (account_id, slug) WHERE deleted_at IS NULL;`);
    this.addSql(
      `CREATE INDEX posts_pending ON posts (updated_at) WHERE status = 'pending_moderation' AND deleted_at IS NULL;`,
    );

    this.addSql(`
      CREATE TABLE post_tags (
        post_id uuid NOT NULL REFERENCES posts(id),
        tag_id uuid NOT NULL REFERENCES tags(id),
        position integer NOT NULL,
        PRIMARY KEY (post_id, tag_id)
      );`);

    // Fixed 60-second windows, one row per account, class and window (contract: "Limits").
    this.addSql(`
      CREATE TABLE rate_windows (
        account_id uuid NOT NULL,
        class text NOT NULL,
        window_start timestamptz NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (account_id, class, window_start)
      );`);
    // Daily media bytes per UTC day.
    this.addSql(`
      CREATE TABLE media_usage (
        account_id uuid NOT NULL,
        day date NOT NULL,
        bytes bigint NOT NULL,
        PRIMARY KEY (account_id, day)
      );`);

    this.addSql(`
      CREATE TABLE console_sessions (
        id_hash bytea PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id),
        token_id uuid NOT NULL REFERENCES api_tokens(id),
        csrf_token text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        expires_at timestamptz(3) NOT NULL
      );`);
    this.addSql(`CREATE INDEX console_sessions_token ON console_sessions (token_id);`);
  }
}
