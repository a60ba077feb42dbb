import { z } from 'zod';
import { rated, router } from '../trpc';
import { AuthorPostSchema, AuthorPostWithHtmlSchema, AuthorPostWriteSchema } from '../shared.schema';
import { PostIdInput } from './by-id.schema';
import { createPostHandler } from './create.handler';
import { deletePostHandler } from './delete.handler';
import { getPostHandler } from './get.handler';
import { ListPostsInput, ListPostsOutput } from './list.schema';
import { listPostsHandler } from './list.handler';
import { publishPostHandler } from './publish.handler';
import { unpublishPostHandler } from './unpublish.handler';
import { updatePostHandler } from './update.handler';
import { CreatePostInput, UpdatePostInput } from './write.schema';

/**
 * The article routes of the REST contract (docs/api.md "Routes"), one line each: method, path,
 * rate class.
 * Success statuses other than 200 live in ../success-status.ts.
 */
const tags = ['posts'];

export const postsRouter = router({
  list: rated('read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/posts',
        tags,
        summary: 'List own articles',
        errorResponses: [400, 401, 429, 503],
      },
    })
    .input(ListPostsInput)
    .output(ListPostsOutput)
    .query(listPostsHandler),
  get: rated('read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/posts/{id}',
        tags,
        summary: 'One article with html',
        errorResponses: [400, 401, 404, 429, 503],
      },
    })
    .input(PostIdInput)
    .output(AuthorPostWithHtmlSchema)
    .query(getPostHandler),
  create: rated('write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/posts',
        tags,
        summary: 'Create a draft',
        errorResponses: [400, 401, 409, 429, 503],
      },
    })
    .input(CreatePostInput)
    .output(AuthorPostWriteSchema)
    .mutation(createPostHandler),
  update: rated('write')
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/posts/{id}',
        tags,
        summary: 'Partial update of the working version',
        errorResponses: [400, 401, 404, 409, 429, 503],
      },
    })
    .input(UpdatePostInput)
    .output(AuthorPostWriteSchema)
    .mutation(updatePostHandler),
  publish: rated('publish')
    .meta({
      openapi: {
        method: 'POST',
        path: '/posts/{id}/publish',
        tags,
        summary: 'Publish',
        errorResponses: [400, 401, 404, 429, 503],
      },
    })
    .input(PostIdInput)
    .output(AuthorPostSchema)
    .mutation(publishPostHandler),
  unpublish: rated('write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/posts/{id}/unpublish',
        tags,
        summary: 'Unpublish (204)',
        errorResponses: [400, 401, 404, 429, 503],
      },
    })
    .input(PostIdInput)
    .output(z.void())
    .mutation(unpublishPostHandler),
  delete: rated('write')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/posts/{id}',
        tags,
        summary: 'Soft delete (204)',
        errorResponses: [400, 401, 404, 429, 503],
      },
    })
    .input(PostIdInput)
    .output(z.void())
    .mutation(deletePostHandler),
});
