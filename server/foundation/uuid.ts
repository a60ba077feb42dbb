import { z } from 'zod';

/**
 * What this service calls a UUID, everywhere (routes, `cover_asset_id`, media paths, console,
 * CLI): any 8-4-4-4-12 group of hex digits, either case. PostgreSQL's `uuid` type accepts every
 * such value, so an id like 11111111-1111-1111-1111-111111111111 is looked up (404 when there is
 * no such article) rather than refused for lacking RFC 9562 version and variant digits.
 * Written without flags so the same source can serve as a JSON Schema `pattern`.
 */
export const UUID_SOURCE = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
export const UUID_PATTERN = new RegExp(`^${UUID_SOURCE}$`);

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/** The same rule as a zod string (route ids, `cover_asset_id`, AuthorPost ids), declared `format: uuid`. */
export const uuidString = (message = 'must be a UUID') =>
  z.string({ error: message }).regex(UUID_PATTERN, message).meta({ format: 'uuid' });
