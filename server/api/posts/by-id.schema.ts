import { z } from 'zod';
import { uuidString } from '../../uuid';

/** `{id}` path parameter of the per-article routes: a non-UUID is 400 without code, before any lookup. */
export const PostIdInput = z.object({ id: uuidString() });
