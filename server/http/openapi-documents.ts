import type { IncomingMessage, ServerResponse } from 'node:http';
import { openApiEtag, openApiJson } from '../api/openapi/document';
import { operatorOpenApiEtag, operatorOpenApiJson } from '../api/openapi/operator';
import { ifNoneMatchMatches } from '../foundation/entity-tags';

/**
 * The two OpenAPI documents, served without a token: the author API's
 * (`/api/v1/author/openapi.json`, author routes only, so clients generated from it carry
 * nothing else) and the operator routes' (`/api/operator/openapi.json`). Both only change with
 * a deploy: tools revalidate cheaply (ETag), never keep them long.
 */
const DOCUMENT_CACHE_CONTROL = 'public, max-age=300, must-revalidate';

export const AUTHOR_DOCUMENT = { json: openApiJson, etag: openApiEtag };
export const OPERATOR_DOCUMENT = { json: operatorOpenApiJson, etag: operatorOpenApiEtag };

export function serveOpenApiDocument(
  req: IncomingMessage,
  res: ServerResponse,
  document: { json: string; etag: string },
): void {
  res.setHeader('cache-control', DOCUMENT_CACHE_CONTROL);
  res.setHeader('etag', document.etag);
  if (ifNoneMatchMatches(req.headers['if-none-match'], document.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(req.method === 'HEAD' ? undefined : document.json);
}
