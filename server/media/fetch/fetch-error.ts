/**
 * Failure of an outbound image fetch. It is an ApiError (400, no code) because the contract lists every
 * from-url failure — bad scheme, forbidden address, download failure — as a plain 400; rehost
 * catches it instead and records the URL in `rehost_failed`. `kind` lets callers tell them apart.
 */
import { ApiError } from '../../errors';

export type FetchErrorKind =
  | 'bad_url'
  | 'bad_scheme'
  | 'forbidden_address'
  | 'too_large'
  | 'timeout'
  | 'http_status'
  | 'network'
  | 'too_many_redirects';

export class FetchError extends ApiError {
  constructor(
    readonly kind: FetchErrorKind,
    message: string,
    /** Upstream HTTP status, for kind 'http_status'. */
    readonly httpStatus?: number,
  ) {
    super(400, message);
    this.name = 'FetchError';
  }
}

export const isFetchError = (err: unknown): err is FetchError => err instanceof FetchError;
