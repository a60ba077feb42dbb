/**
 * The OpenAPI document of the REST surface, built once at module load (it only changes with a
 * deploy, so every request serves the same bytes and ETag): generated from the tRPC procedures
 * and their zod schemas, then post-processed to the exact contract (post-process.ts).
 */
import { createHash } from 'node:crypto';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { appRouter } from '../root';
import { API_ROUTES } from '../routes';
import { ErrorSchema } from '../common.schema';
import { env } from '../../foundation/env';
import { postProcess, SECURITY_SCHEME } from './post-process';
import type { JsonObject } from './types';

const OPENAPI_VERSION = '1.0.0';

/** What trpc-to-openapi produces on its own; exported so tests can see what post-processing fixes. */
function generateRawDocument(): JsonObject {
  return generateOpenApiDocument(appRouter, {
    title: 'Author Publishing API',
    version: OPENAPI_VERSION,
    baseUrl: '/api/v1/author',
    securitySchemes: { [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer' } },
    // Not referenced by any zod output: registered so the shared error body comes from zod too.
    defs: { ApiError: ErrorSchema },
  }) as JsonObject;
}

// With PUBLIC_ORIGIN set, `servers` names the API's absolute URL, so a client generated from the
// document needs no base URL by hand; without it, the path alone (relative to where it was read).
export const openApiDocument: JsonObject = postProcess(generateRawDocument(), API_ROUTES, {
  publicOrigin: env.PUBLIC_ORIGIN,
});
export const openApiJson = JSON.stringify(openApiDocument);
export const openApiEtag = `"${createHash('sha256').update(openApiJson).digest('base64url').slice(0, 27)}"`;
