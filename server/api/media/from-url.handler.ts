import { mediaDepsOf } from '../../runtime/request-contexts';
import type { z } from 'zod';
import { storeFromUrl } from '../../services/media/media-storage';
import type { AuthorContext } from '../trpc';
import type { FromUrlInput } from './media.schema';

export async function fromUrlHandler({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof FromUrlInput> }) {
  return storeFromUrl(mediaDepsOf(ctx.parts), ctx.auth.account, input.url, ctx.headers.get('host'));
}
