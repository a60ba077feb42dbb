/**
 * The one REST route that is not a tRPC procedure: `POST /media` takes multipart/form-data,
 * which trpc-to-openapi cannot carry, so server/http/media-upload.ts serves it and its facts and
 * operation are written here by hand. Plain OpenAPI objects; its Media schema is from-url's.
 */
import type { RouteFacts } from '../route-meta';
import type { JsonObject } from './types';

// Typed by the route facts (route-meta.ts), not routes.ts's ApiRoute: routes.ts imports this
// module, and a module here importing it back made a loop.
export const UPLOAD_ROUTE: RouteFacts = {
  method: 'POST',
  path: '/media',
  success: 200,
  rate: 'media',
  errors: [400, 401, 422, 429, 503],
};

export function uploadOperation(mediaRef: JsonObject): JsonObject {
  return {
    operationId: 'media-upload',
    summary: 'Upload an image file',
    tags: ['media'],
    description:
      'Send `multipart/form-data` with one field `file`: a non-empty image of at most 50 MiB. Let the HTTP client set the Content-Type (it carries the boundary). Animated images are refused with 422 `animated_image`; store an animated GIF through `POST /media/from-url` instead.',
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              file: {
                type: 'string',
                format: 'binary',
                description: 'The image (JPEG, PNG, WebP, GIF or AVIF), at most 50 MiB.',
              },
            },
            required: ['file'],
          },
        },
      },
    },
    responses: { 200: { description: 'The stored image', content: { 'application/json': { schema: mediaRef } } } },
  };
}
