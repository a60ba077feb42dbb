/**
 * Why an image was refused. A DomainError so routes can rethrow it as is: every reason is the
 * caller's `invalid` file (the contract's 400 for any unusable file), except 'animated', which is
 * `unsupported` (422 `animated_image`). `format` tells from-url whether an animated file is a GIF
 * it can turn into MP4.
 */
import { DomainError } from '../../foundation/errors';
import type { ImageFormat } from './sniff';

export type ImageProblem = 'empty' | 'unsupported' | 'corrupt' | 'too_large' | 'animated' | 'conversion_failed';

export class ImageError extends DomainError {
  constructor(
    readonly problem: ImageProblem,
    message: string,
    readonly format?: ImageFormat,
  ) {
    super(problem === 'animated' ? 'unsupported' : 'invalid', message);
    this.name = 'ImageError';
  }
}

export const isImageError = (err: unknown): err is ImageError => err instanceof ImageError;
