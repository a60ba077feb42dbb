import type { DailyQuotaExceededError } from '../../services/media';

/**
 * Every 429 carries Retry-After and RateLimit-*. For the daily quota they describe
 * the quota (bytes, what is left, next UTC midnight) rather than the minute window, so that
 * Retry-After = RateLimit-Reset − now holds for the limit that was actually hit.
 */
export function quotaHeaders(err: DailyQuotaExceededError): Record<string, string> {
  return {
    'RateLimit-Limit': String(err.quota),
    'RateLimit-Remaining': String(Math.max(0, err.quota - err.used)),
    'RateLimit-Reset': String(err.reset),
    'Retry-After': String(err.retryAfter),
  };
}
