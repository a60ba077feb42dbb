import { z } from 'zod';
import { requiredString } from '../common.schema';

/** `POST /media/from-url` body; an empty string is refused by the service with a clearer message. */
export const FromUrlInput = z.object({ url: requiredString() });
