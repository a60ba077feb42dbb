import { router } from './trpc';
import { mediaRouter } from './media/_router';
import { meRouter } from './me/_router';
import { postsRouter } from './posts/_router';

/** Assembles the REST routers; nothing else belongs here. */
export const appRouter = router({
  me: meRouter,
  posts: postsRouter,
  media: mediaRouter,
});
