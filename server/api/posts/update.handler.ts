import { writeContextOf } from '../../runtime/request-contexts';
import type { z } from 'zod';
import { admitAndUpdatePost } from '../../services/post-writes';
import type { AuthorReadFirstContext } from '../trpc';
import { sendEtag, writePreconditions } from './conditional';
import type { UpdatePostInput } from './write.schema';

export const updatePostHandler = async ({
  ctx,
  input,
}: {
  ctx: AuthorReadFirstContext;
  input: z.infer<typeof UpdatePostInput>;
}) => {
  const { id, ...fields } = input;
  const post = await admitAndUpdatePost(
    ctx.admitAndRead,
    (auth) => writeContextOf(ctx.parts, auth),
    id,
    fields,
    writePreconditions(ctx),
  );
  sendEtag(ctx, post);
  return post;
};
