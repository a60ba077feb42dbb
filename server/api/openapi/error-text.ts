/**
 * The words of the OpenAPI document that belong to statuses and rate classes rather than to one
 * route: when each error status happens (with its fixed `code` and an example), and what each
 * rate class allows by default (from the limits' own defaults, so the text cannot drift).
 */
import { RATE_CLASS_NAMES, RATE_CLASSES, type RateClass, type RateClassEntry } from '../../model/rate-classes';
import type { ErrorStatus } from '../route-meta';
import type { ErrorCode } from '../common.schema';

const requests = (n: number) => `${n} request${n === 1 ? '' : 's'} per minute`;

/** The default limit of each rate class, quoted in each operation's description. */
export const RATE_CLASS_TEXT = Object.fromEntries(
  RATE_CLASS_NAMES.map((cls) => {
    const c: RateClassEntry = RATE_CLASSES[cls];
    return [
      cls,
      `Rate class: ${cls} (${requests(c.perMinute)}${c.defaultsExtra ?? ''} by default)${c.openapiNote ?? ''}.`,
    ];
  }),
) as Record<RateClass, string>;

/** When each error status happens and its fixed `code`, if any (docs/api.md "Errors"). */
export const ERROR_TEXT: Record<ErrorStatus, { description: string; code?: ErrorCode; example: string }> = {
  400: {
    description:
      'Bad request: invalid JSON, a missing or invalid field, a bad query parameter, a non-UUID path id, a bad cursor or an empty document. `code` is omitted.',
    example: 'title: must not be empty',
  },
  401: {
    description: 'Missing, wrong or revoked token, deleted account, or a site JWT instead of a dp_live_ token.',
    code: 'unauthorized',
    example: 'Authorization: the token is unknown or revoked',
  },
  404: {
    description: "Not found: absent, deleted, or another author's article (they look the same).",
    code: 'not_found',
    example: 'Not found',
  },
  409: {
    description: 'The slug is already used by one of your articles. `code` is omitted.',
    example: 'slug: already used by another of your articles',
  },
  412: {
    description:
      'Only with `If-Match` (beyond the contract): the article has changed since the version named there was read; nothing was changed. GET it again, reapply the change and send the new ETag.',
    code: 'precondition_failed',
    example: 'If-Match: the article has changed since that version was read; nothing was changed',
  },
  422: {
    description:
      'The image is animated: `POST /media` accepts none, `POST /media/from-url` stores only animated GIFs (as video).',
    code: 'animated_image',
    example: 'file: animated images are not accepted',
  },
  429: {
    description: 'Minute limit or daily media quota exhausted; see the headers for when to retry.',
    code: 'rate_limited',
    example: 'read limit of 60 requests per minute reached; retry after 12 s',
  },
  503: {
    description: 'An internal dependency (database, storage) is temporarily unavailable; retry shortly.',
    code: 'service_unavailable',
    example: 'Database temporarily unavailable; retry shortly',
  },
};
