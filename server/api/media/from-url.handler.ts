import type { z } from 'zod';
import { mediaStorage, outboundAllowList } from '../../media/storage-instance';
import { DailyQuotaExceededError, storeFromUrl } from '../../services/media';
import type { AuthorContext } from '../trpc';
import { quotaHeaders } from './limit-headers';
import type { FromUrlInput } from './media.schema';

export async function fromUrlHandler({ ctx, input }: { ctx: AuthorContext; input: z.infer<typeof FromUrlInput> }) {
  const deps = { em: ctx.em, storage: mediaStorage(), allowList: outboundAllowList() };
  try {
    return await storeFromUrl(deps, ctx.auth.account, input.url, ctx.headers.get('host'));
  } catch (err) {
    if (err instanceof DailyQuotaExceededError)
      for (const [name, value] of Object.entries(quotaHeaders(err))) ctx.res.setHeader(name, value);
    throw err;
  }
}
