import { z } from 'zod';
import { requiredString } from '../common.schema';
import { unknownField } from '../../services/posts/post-rules';

/**
 * `POST /media/from-url` body; an empty string is refused by the service with a clearer message.
 * Unknown fields are refused by name, as on every JSON route: a misspelt field is never dropped
 * without a word.
 */
export const FromUrlInput = z.strictObject({ url: requiredString() }, { error: unknownField });
