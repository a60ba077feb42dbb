import { z } from 'zod';
import { uuidParam } from '../shared.schema';

/** `{id}` path parameter of the per-article routes: a non-UUID is 400 (SPEC). */
export const PostIdInput = z.object({ id: uuidParam });
