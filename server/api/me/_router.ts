import { z } from 'zod';
import { route } from '../route-meta';
import { authorReadFirstProcedure, router } from '../trpc';
import { meHandler } from './me.handler';
import { MeOutput } from './me.schema';

export const meRouter = router({
  get: authorReadFirstProcedure
    .meta(
      route({
        method: 'GET',
        path: '/me',
        tags: ['account'],
        summary: 'Handle and limits',
        rate: 'read',
        errors: [401, 429, 503],
      }),
    )
    .input(z.void())
    .output(MeOutput)
    .query(meHandler),
});
