/**
 * The media routes described by hand: `POST /media` is a plain Next route
 * handler because trpc-to-openapi cannot take multipart/form-data, and `POST /media/from-url`
 * is used here only until a procedure for it exists (the generated one wins then).
 * Plain OpenAPI objects, not zod, so nothing here can collide with a zod schema `id`.
 */
import type { JsonObject } from './types';

const uuid = { type: 'string', format: 'uuid' };
const mediaPath = { type: 'string', pattern: '^/api/media/[0-9a-fA-F-]{36}$' };

/** The Media object; `gif` for animated GIFs stored as MP4 through from-url (`<video>` cannot play a GIF). */
export const MEDIA_SCHEMA: JsonObject = {
  type: 'object',
  description: 'A stored file. Put `url` into Markdown/HTML and `id` into `cover_asset_id`.',
  properties: {
    id: { ...uuid, description: 'Media id; goes into `cover_asset_id`.' },
    url: { ...mediaPath, description: '`/api/media/{uuid}`; goes into Markdown/HTML.' },
    kind: {
      type: 'string',
      enum: ['image', 'gif'],
      description: '`image` for images; `gif` for an animated GIF stored as a muted MP4 by `POST /media/from-url`.',
    },
    mime_type: { type: 'string', description: 'Content type of the stored file.' },
    byte_size: { type: 'integer', minimum: 0, description: 'Size in bytes.' },
    width: { type: 'integer', minimum: 1, description: 'Pixels.' },
    height: { type: 'integer', minimum: 1, description: 'Pixels.' },
    status: { type: 'string', enum: ['ready'] },
    poster_url: {
      anyOf: [mediaPath, { type: 'null' }],
      description: 'Always null for images; the first frame for `gif`.',
    },
  },
  required: ['id', 'url', 'kind', 'mime_type', 'byte_size', 'width', 'height', 'status', 'poster_url'],
  additionalProperties: false,
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

export function fromUrlOperation(mediaRef: JsonObject): JsonObject {
  return {
    operationId: 'media-fromUrl',
    summary: 'Store one external image',
    tags: ['media'],
    description:
      'Downloads one image from an http(s) URL and stores it. Local and internal addresses, `/api/media/{uuid}` paths and direct video files are refused with 400. An animated GIF is stored as a muted MP4 (`kind: gif`) for the GIF island.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { url: { type: 'string', minLength: 1, description: 'An http or https URL.' } },
            required: ['url'],
          },
        },
      },
    },
    responses: { 200: { description: 'The stored media', content: { 'application/json': { schema: mediaRef } } } },
  };
}
