import { z } from 'zod';
import { PostCreateBody, bodyRules, unknownField, updateFields } from '../../services/posts/post-rules';
import { uuidString } from '../../foundation/uuid';

/**
 * Body fields of POST /posts and PATCH /posts/{id}: the domain's write schemas
 * (services/posts/post-rules.ts), every rule in them, so the procedure's input parse is the one pass
 * and the OpenAPI document states what it checks. Unknown fields (cover_width, cover_height
 * included: they are computed) are refused.
 */
export const CreatePostInput = PostCreateBody;

/** The path's `id` beside the fields; it does not count as a field to change. */
export const UpdatePostInput = z
  .strictObject({ id: uuidString(), ...updateFields }, { error: unknownField })
  .superRefine(bodyRules(Object.keys(updateFields)));
