import { z } from 'zod';
import { unknownField } from '../../services/posts/post-rules';
import { uuidString } from '../../foundation/uuid';

/** `{id}` path parameter of the per-article routes: a non-UUID is 400 without code, before any lookup. */
export const PostIdInput = z.object({ id: uuidString() });

/**
 * Publish and unpublish take no body (contract: "No query, no body"): an empty one or `{}` is
 * fine, and any field is a 400 naming it, never accepted silently.
 */
export const PostIdOnlyInput = z.strictObject({ id: uuidString() }, { error: unknownField });
