/**
 * What went wrong, in the domain's words. Services, content and media throw `DomainError`s that
 * say which kind of failure it is; they know nothing of HTTP. Each caller turns a kind into its
 * own answer in one place:
 * - REST and /api/media: server/http/errors.ts (status, `{error, code?}` body, headers);
 * - the console: server/console/problems.ts (a sentence);
 * - the CLI: server/cli/main.ts (the message on stderr, exit code 1).
 *
 * The message is shown to callers as it is, so it names the field or the rule ("title: must not
 * be empty"): for the contract's 400 and 409 it is the only explanation they get.
 */
export type ErrorKind =
  /** The caller's input breaks a rule (a field, a document, a file, an address). */
  | 'invalid'
  /** No usable credentials. */
  | 'unauthenticated'
  /** The thing named does not exist, or not for this caller. */
  | 'not_found'
  /** The input is valid but collides with what exists (a taken slug or handle). */
  | 'conflict'
  /** The caller's version of the thing is not the current one (If-Match); nothing was changed. */
  | 'stale'
  /** The caller's version is the current one (If-None-Match): not a failure, but it ends the work. */
  | 'not_modified'
  /** Well-formed input of a kind the service will not take (an animated image where a still is needed). */
  | 'unsupported'
  /** A limit of the account is used up; `window` says which and until when. */
  | 'rate_limited'
  /** A dependency (database, storage, the conversion workers) cannot serve now; retrying may work. */
  | 'unavailable';

/** The limit a `rate_limited` error hit: what it allows, what is left, and when it resets. */
export interface LimitWindow {
  limit: number;
  remaining: number;
  /** Unix time (seconds) at which the limit resets. */
  reset: number;
  /** Whole seconds until the reset, at least 1. */
  retryAfter: number;
}

export class DomainError extends Error {
  /** For `rate_limited`: the limit that was hit. */
  readonly window?: LimitWindow;
  /** For `unauthenticated`: a token was presented and refused (unknown, revoked, not an API token), not merely absent. */
  readonly tokenRefused?: boolean;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    options: { window?: LimitWindow; cause?: unknown; tokenRefused?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    if (options.window) this.window = options.window;
    if (options.tokenRefused) this.tokenRefused = true;
  }
}

export const invalid = (message: string) => new DomainError('invalid', message);
export const unauthenticated = (message = 'Missing or invalid API token', options: { tokenRefused?: boolean } = {}) =>
  new DomainError('unauthenticated', message, options);
export const notFound = (message = 'Not found') => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const stale = (message: string) => new DomainError('stale', message);
export const notModified = () => new DomainError('not_modified', 'Not modified');
export const rateLimited = (message: string, window: LimitWindow) =>
  new DomainError('rate_limited', message, { window });
export const unavailable = (message = 'Service temporarily unavailable', cause?: unknown) =>
  new DomainError('unavailable', message, { cause });

export const isDomainError = (err: unknown, kind?: ErrorKind): err is DomainError =>
  err instanceof DomainError && (kind === undefined || err.kind === kind);
