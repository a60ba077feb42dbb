import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { ApiError } from '../errors';
import { isDatabaseUnavailable } from '../../db/errors';

/**
 * Maps every failure to the contract's error body `{error, code?}` and its status. tRPC wraps any
 * thrown value in a TRPCError whose `cause` is the original; trpc-to-openapi's own failures
 * (unknown route, bad JSON, wrong content type) arrive as TRPCError codes.
 */
export function toApiError(error: unknown): ApiError {
  const cause = error instanceof TRPCError ? (error.cause ?? error) : error;
  if (cause instanceof ApiError) return cause;
  // Input validation is the caller's 400; a response that fails its own schema (tRPC's
  // "Output validation failed", an INTERNAL_SERVER_ERROR) is our bug and stays a 500.
  const isZod = cause instanceof ZodError || (cause instanceof Error && cause.name === 'ZodError');
  if (isZod && error instanceof TRPCError && error.code === 'BAD_REQUEST')
    return new ApiError(400, describeZodError(cause as ZodError));
  if (isDatabaseUnavailable(cause))
    return new ApiError(503, 'Database temporarily unavailable; retry shortly', 'service_unavailable');
  if (cause instanceof Error && cause.name === 'StorageUnavailableError')
    return new ApiError(503, 'Media storage temporarily unavailable; retry shortly', 'service_unavailable');
  if (cause instanceof Error && cause.name === 'ConversionBusyError')
    return new ApiError(503, 'Conversion queue is full; retry shortly', 'service_unavailable');
  if (error instanceof TRPCError) {
    switch (error.code) {
      case 'NOT_FOUND':
        return new ApiError(404, 'Not found', 'not_found');
      case 'PARSE_ERROR':
        return new ApiError(400, 'body: invalid JSON');
      case 'UNSUPPORTED_MEDIA_TYPE':
        return new ApiError(400, 'Content-Type: must be application/json');
      case 'PAYLOAD_TOO_LARGE':
        return new ApiError(400, 'body: request body too large');
      case 'PRECONDITION_FAILED':
        return new ApiError(412, error.message || 'Precondition failed', 'precondition_failed');
      case 'BAD_REQUEST':
        return new ApiError(400, error.message || 'Bad request');
      default:
        break;
    }
  }
  return new ApiError(500, 'Internal server error');
}

/** "title: must not be empty": a 400 carries no code, so the message must name the field. */
export function describeZodError(err: ZodError): string {
  const issues = err.issues.slice(0, 3).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
    return `${field}: ${issue.message}`;
  });
  return issues.join('; ');
}
