/**
 * An API token as everything above the database sees it: the console's account page, and the
 * CLI's `token list`, which prints it as it is. Never its secret, only its last four characters.
 * The fields are named as the CLI prints them (snake_case, like every JSON the service writes),
 * and server/data/tokens.ts reads the columns under these names: its one mapper only turns the
 * timestamps into ISO 8601, and no layer renames a field.
 */
export interface TokenRecord {
  id: string;
  name: string;
  /** `dp_live_` (model/token-secret.ts). */
  prefix: string;
  last_four: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601; null until the token is first used. */
  last_used_at: string | null;
  /** ISO 8601; null while the token is active. */
  revoked_at: string | null;
}
