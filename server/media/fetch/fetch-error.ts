/**
 * Failure of an outbound image fetch. It is the caller's `invalid` input (a plain 400) because the
 * contract lists every from-url failure — bad scheme, forbidden address, download failure — as
 * one; rehost catches it instead and records the URL in `rehost_failed`. `problem` lets callers
 * tell them apart.
 */
import { DomainError } from '../../foundation/errors';

export type FetchProblem =
  | 'bad_url'
  | 'bad_scheme'
  | 'forbidden_address'
  | 'too_large'
  | 'timeout'
  | 'http_status'
  | 'network'
  | 'too_many_redirects';

export class FetchError extends DomainError {
  constructor(
    readonly problem: FetchProblem,
    message: string,
    /** Upstream HTTP status, for kind 'http_status'. */
    readonly httpStatus?: number,
  ) {
    super('invalid', message);
    this.name = 'FetchError';
  }
}

export const isFetchError = (err: unknown): err is FetchError => err instanceof FetchError;
