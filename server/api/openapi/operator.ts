/**
 * Operator routes: served beside the author API by the same process but not part of it (not
 * under /api/v1/author, not an author's token). Described in the same document so one file
 * says everything the service answers; the path item's own `servers` entry puts them under
 * `/api`, and their own security scheme says which token they take. Schemas come from the zod
 * schemas the route validates with (server/services/reader-events.ts).
 */
import { z } from 'zod';
import { ReaderEventBatchSchema, ReaderEventsResultSchema } from '../../services/reader-events';
import type { JsonObject } from './types';

const OPERATOR_SECURITY_SCHEME = 'operatorToken';

const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonObject;
  return rest;
};

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

export function addOperatorRoutes(doc: JsonObject): void {
  doc.tags = [...(doc.tags ?? []), { name: 'operator', description: 'Operator routes, not part of the author API' }];
  doc.components.securitySchemes[OPERATOR_SECURITY_SCHEME] = {
    type: 'http',
    scheme: 'bearer',
    description: 'READER_EVENTS_TOKEN, the operator secret set in the service environment (never an author token).',
  };
  doc.paths['/reader-events'] = {
    servers: [{ url: '/api', description: 'Operator routes of this service' }],
    post: {
      operationId: 'reader-events',
      summary: "Feed in the platform's reader events (operator route)",
      tags: ['operator'],
      description: [
        'Enabled only when the service runs with `READER_EVENTS_TOKEN` set (404 otherwise); `Authorization: Bearer <READER_EVENTS_TOKEN>`.',
        'Adds impressions, opens, reads, full reads, likes, comments and saves (and takes back likes, comments and saves) to articles, and recomputes their `popularity`.',
        '`applied` counts the events naming a live article; `unknown_posts` lists the ids naming none (unknown or deleted), which are not an error.',
        'A `batch_id` already applied applies nothing and answers what it answered the first time. Counters never go below 0.',
      ].join('\n\n'),
      security: [{ [OPERATOR_SECURITY_SCHEME]: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(ReaderEventBatchSchema) } } },
      responses: {
        200: {
          description: 'Applied (or already applied by this batch id)',
          content: { 'application/json': { schema: jsonSchema(ReaderEventsResultSchema) } },
        },
        400: error('A malformed body; the message names the field'),
        401: error('Missing or wrong operator token'),
        404: error('The route is disabled (READER_EVENTS_TOKEN unset)'),
        503: error('The database is unavailable; retry the same batch later'),
      },
    },
  };
}
