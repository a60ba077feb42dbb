import { route } from '../route-meta';
import { authorProcedure, router } from '../trpc';
import { fromUrlHandler } from './from-url.handler';
import { MediaSchema } from '../../services/media/media.schema';
import { FromUrlInput } from './media.schema';

/**
 * The media route tRPC can carry. `POST /media` (multipart) is served by server/http/media-upload.ts
 * and described by hand in ../openapi/media.ts, because trpc-to-openapi takes JSON bodies only.
 */
const tags = ['media'];

export const mediaRouter = router({
  fromUrl: authorProcedure
    .meta(
      route({
        method: 'POST',
        path: '/media/from-url',
        tags,
        summary: 'Store one external image',
        description:
          'Downloads one image from an http(s) URL and stores it. Local and internal addresses, `/api/media/{uuid}` paths and direct video files are refused with 400. An animated GIF is stored as a muted MP4 (`kind: gif`, `poster_url` its first frame) for the GIF island; other animated images get 422 `animated_image`. A body field other than `url` is refused with 400.',
        // 422 animated_image too: from-url turns only animated GIFs into video; other animated formats are refused.
        rate: 'media',
        errors: [400, 401, 422, 429, 503],
      }),
    )
    .input(FromUrlInput)
    .output(MediaSchema)
    .mutation(fromUrlHandler),
});
