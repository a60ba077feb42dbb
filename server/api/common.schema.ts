import { z } from 'zod';

/** Schemas shared by several procedures: the error body and field messages. (The AuthorPost shapes are the domain's: services/posts/author-post.schema.ts.) */

/**
 * Every machine `code` an error body may carry, one per status that has one (docs/api.md
 * "Errors"; server/http/errors.ts maps each failure to its status and code, typed by this list).
 * A client can switch over them and be checked for completeness.
 */
const ERROR_CODES = [
  'unauthorized',
  'not_found',
  'precondition_failed',
  'animated_image',
  'rate_limited',
  'service_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Named `ApiError`, not `Error`: generated clients would shadow the global `Error` with it. */
export const ErrorSchema = z
  .object({
    error: z.string(),
    code: z.enum(ERROR_CODES).optional(),
  })
  .meta({
    id: 'ApiError',
    description: 'Error body. `code` is omitted when there is no stable machine code (400, 409).',
  });

/** Messages that name the field: a 400 carries no code, so the message must say what was wrong. */
export const requiredString = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });
