import { z } from 'zod';
import { rated, router } from '../trpc';
import { meHandler } from './me.handler';
import { MeOutput } from './me.schema';

export const meRouter = router({
  get: rated('read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/me',
        tags: ['account'],
        summary: 'Handle and limits',
        errorResponses: [401, 429, 503],
      },
    })
    .input(z.void())
    .output(MeOutput)
    .query(meHandler),
});
