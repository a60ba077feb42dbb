/**
 * Operator routes: served beside the author API by the same process but not part of it (not
 * under /api/v1/author, not an author's token). Described in a document of their own
 * (`/api/operator/openapi.json`), so that clients generated from the author document never
 * carry them. Schemas come from the zod schemas the route validates with
 * (server/services/readers/reader-events.ts) and the error body's from the author API's (the same shape).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ReaderEventBatchSchema, ReaderEventsResultSchema } from '../../services/readers/reader-events';
import { ErrorSchema } from '../common.schema';
import type { JsonObject } from './types';

/** Where the operator document is served (server/http/request-listener.ts). */
export const OPERATOR_OPENAPI_PATH = '/api/operator/openapi.json';

const OPERATOR_SECURITY_SCHEME = 'operatorToken';

const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonObject;
  return rest;
};

/** The shared error body, as the author document has it (its zod schema carries an id, so it comes back as `$defs`). */
const errorBodySchema = (): JsonObject => {
  const generated = jsonSchema(ErrorSchema);
  return generated.$defs?.ApiError ?? generated;
};

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
});

function operatorDocument(version: string): JsonObject {
  const doc: JsonObject = {
    openapi: '3.1.0',
    info: {
      title: 'Author Publishing API: operator routes',
      version,
      description:
        "Routes for the platform's operators, not for authors' integrations: their own secret (set in the service environment), outside the author API.",
    },
    servers: [{ url: '/api', description: 'Operator routes of this service' }],
    tags: [{ name: 'operator', description: 'Operator routes, not part of the author API' }],
    paths: {},
    components: {
      securitySchemes: {
        [OPERATOR_SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'READER_EVENTS_TOKEN, the operator secret set in the service environment (never an author token).',
        },
      },
      schemas: { ApiError: errorBodySchema() },
    },
  };
  doc.paths['/reader-events'] = {
    post: {
      operationId: 'reader-events',
      summary: "Feed in the platform's reader events (operator route)",
      tags: ['operator'],
      description: [
        'Enabled only when the service runs with `READER_EVENTS_TOKEN` set (404 otherwise); `Authorization: Bearer <READER_EVENTS_TOKEN>`.',
        'Adds impressions, opens, reads, full reads, likes, comments and saves to articles, takes them back (`unimpression`, `unopen`, `unread`, `uncomplete`, `unlike`, `uncomment`, `unsave`: corrections, such as readers the platform judged fraudulent), and recomputes their `popularity`.',
        '`applied` counts the events naming a live article; `unknown_posts` lists the ids naming none (unknown or deleted), which are not an error.',
        'A `batch_id` applied in the last 30 days applies nothing and answers what it answered the first time. Counters never go below 0.',
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
  return doc;
}

export const operatorOpenApiJson = JSON.stringify(operatorDocument('1.0.0'));
export const operatorOpenApiEtag = `"${createHash('sha256').update(operatorOpenApiJson).digest('base64url').slice(0, 27)}"`;
