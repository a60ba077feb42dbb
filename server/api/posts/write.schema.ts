import { z } from 'zod';
import { unknownField, writeFields } from '../../services/post-rules';
import { uuidString } from '../../uuid';

/**
 * Body fields of POST /posts and PATCH /posts/{id}, from the domain's field schemas
 * (services/post-rules.ts); here they shape the 400s of the REST surface and the OpenAPI
 * document. Unknown fields (cover_width, cover_height included: they are computed) are refused.
 */
export const CreatePostInput = z.strictObject(writeFields, { error: unknownField });

export const UpdatePostInput = z.strictObject(
  { id: uuidString(), ...writeFields, title: writeFields.title.optional(), markdown: writeFields.markdown.optional() },
  { error: unknownField },
);
