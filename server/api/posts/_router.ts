import { z } from 'zod';
import { route } from '../route-meta';
import {
  AuthorPostSchema,
  AuthorPostWithHtmlSchema,
  AuthorPostWriteSchema,
} from '../../services/posts/author-post.schema';
import { authorProcedure, authorReadFirstProcedure, router } from '../trpc';
import { PostIdInput, PostIdOnlyInput } from './by-id.schema';
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
 * The article routes (docs/api.md "Routes"), each with everything that defines it: method,
 * path, success status, rate class, documented errors and conditional-request role.
 * 412 (If-Match) and 304 (If-None-Match) are ours, beyond the contract: only clients that send
 * those headers ever see them.
 */
const tags = ['posts'];

export const postsRouter = router({
  list: authorReadFirstProcedure
    .meta(
      route({
        method: 'GET',
        path: '/posts',
        tags,
        summary: 'List own articles',
        rate: 'read',
        errors: [400, 401, 429, 503],
      }),
    )
    .input(ListPostsInput)
    .output(ListPostsOutput)
    .query(listPostsHandler),
  get: authorReadFirstProcedure
    .meta(
      route({
        method: 'GET',
        path: '/posts/{id}',
        tags,
        summary: 'One article with html',
        rate: 'read',
        errors: [400, 401, 404, 429, 503],
        conditional: { etag: true, read: true },
      }),
    )
    .input(PostIdInput)
    .output(AuthorPostWithHtmlSchema)
    .query(getPostHandler),
  create: authorProcedure
    .meta(
      route({
        method: 'POST',
        path: '/posts',
        tags,
        summary: 'Create a draft',
        success: 201,
        rate: 'write',
        errors: [400, 401, 409, 429, 503],
        conditional: { etag: true },
        converts: true,
      }),
    )
    .input(CreatePostInput)
    .output(AuthorPostWriteSchema)
    .mutation(createPostHandler),
  update: authorReadFirstProcedure
    .meta(
      route({
        method: 'PATCH',
        path: '/posts/{id}',
        tags,
        summary: 'Partial update of the working version',
        rate: 'write',
        errors: [400, 401, 404, 409, 412, 429, 503],
        conditional: { etag: true, write: true },
        converts: true,
      }),
    )
    .input(UpdatePostInput)
    .output(AuthorPostWriteSchema)
    .mutation(updatePostHandler),
  publish: authorProcedure
    .meta(
      route({
        method: 'POST',
        path: '/posts/{id}/publish',
        tags,
        summary: 'Publish',
        rate: 'publish',
        errors: [400, 401, 404, 412, 429, 503],
        conditional: { etag: true, write: true },
      }),
    )
    .input(PostIdOnlyInput)
    .output(AuthorPostSchema)
    .mutation(publishPostHandler),
  unpublish: authorProcedure
    .meta(
      route({
        method: 'POST',
        path: '/posts/{id}/unpublish',
        tags,
        summary: 'Unpublish (204)',
        success: 204,
        rate: 'write',
        errors: [400, 401, 404, 412, 429, 503],
        conditional: { etag: true, write: true },
      }),
    )
    .input(PostIdOnlyInput)
    .output(z.void())
    .mutation(unpublishPostHandler),
  delete: authorProcedure
    .meta(
      route({
        method: 'DELETE',
        path: '/posts/{id}',
        tags,
        summary: 'Soft delete (204)',
        success: 204,
        rate: 'write',
        errors: [400, 401, 404, 412, 429, 503],
        conditional: { etag: false, write: true },
      }),
    )
    .input(PostIdInput)
    .output(z.void())
    .mutation(deletePostHandler),
});
