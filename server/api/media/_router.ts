import { rated, router } from '../trpc';
import { fromUrlHandler } from './from-url.handler';
import { FromUrlInput, MediaSchema } from './media.schema';

/**
 * The media route tRPC can carry. `POST /media` (multipart) is a plain route handler,
 * app/api/v1/author/media/route.ts, because trpc-to-openapi takes JSON bodies only.
 */
const tags = ['media'];

export const mediaRouter = router({
  fromUrl: rated('media')
    .meta({
      openapi: {
        method: 'POST',
        path: '/media/from-url',
        tags,
        summary: 'Store one external image',
        description:
          'Downloads one image from an http(s) URL and stores it. Local and internal addresses, `/api/media/{uuid}` paths and direct video files are refused with 400. An animated GIF is stored as a muted MP4 (`kind: gif`, `poster_url` its first frame) for the GIF island; other animated images get 422 `animated_image`.',
        errorResponses: [400, 401, 422, 429, 503],
      },
    })
    .input(FromUrlInput)
    .output(MediaSchema)
    .mutation(fromUrlHandler),
});
