/**
 * Why an image was refused. An ApiError so routes can rethrow it as is: every kind is a 400
 * without code (the contract's answer for any unusable file), except 'animated', which is 422
 * `animated_image`. `format` tells from-url whether an animated file is a GIF it can turn into MP4.
 */
import { ApiError } from '../../errors';
import type { ImageFormat } from './sniff';

export type ImageErrorKind = 'empty' | 'unsupported' | 'corrupt' | 'too_large' | 'animated' | 'conversion_failed';

export class ImageError extends ApiError {
  constructor(
    readonly kind: ImageErrorKind,
    message: string,
    readonly format?: ImageFormat,
  ) {
    super(kind === 'animated' ? 422 : 400, message, kind === 'animated' ? 'animated_image' : undefined);
    this.name = 'ImageError';
  }
}

export const isImageError = (err: unknown): err is ImageError => err instanceof ImageError;
