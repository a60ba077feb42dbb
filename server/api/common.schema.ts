import { z } from 'zod';

/** Schemas shared by several procedures: the error body and field messages. (The AuthorPost shapes are the domain's: services/author-post.schema.ts.) */

export const ErrorSchema = z
  .object({ error: z.string(), code: z.string().optional() })
  .meta({ id: 'Error', description: 'Error body. `code` is omitted when there is no stable machine code (400, 409).' });

/** Messages that name the field: a 400 carries no code, so the message must say what was wrong. */
export const requiredString = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });
