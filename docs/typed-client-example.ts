/**
 * A typed client for the Author Publishing API in a few lines, without the client package
 * (clients/typescript): types generated from the served OpenAPI document with
 * openapi-typescript (here the package's generated file), calls made with openapi-fetch.
 *
 *   npx openapi-typescript https://your-host/api/v1/author/openapi.json -o author-api.d.ts
 *   AUTHOR_API_URL=https://your-host AUTHOR_API_TOKEN=dp_live_… npx tsx docs/typed-client-example.ts
 *
 * Run it from server-side code only: the token must never reach a browser.
 * tests/integration/typed-client.test.ts runs this file against the real service.
 */
import { pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import type { paths } from '../clients/typescript/src/schema';

export async function createPreviewAndPublish(opts: {
  baseUrl: string;
  token: string;
  fetch?: (request: Request) => Promise<Response>;
}) {
  const client = createClient<paths>({
    baseUrl: `${opts.baseUrl}/api/v1/author`,
    headers: { Authorization: `Bearer ${opts.token}` },
    fetch: opts.fetch,
  });

  // 1. Create a draft (201). Body fields are checked by the compiler against the document.
  const created = await client.POST('/posts', {
    body: {
      title: 'Hello from a typed client',
      markdown: 'Written with **openapi-fetch**.\n\n- typed\n- checked',
      tags: ['api'],
    },
  });
  if (!created.data) throw new Error(`create failed: ${created.response.status} ${created.error?.error}`);
  const id = created.data.id;
  // Present only when an external image could not be stored (never an empty array).
  if (created.data.rehost_failed) console.warn('not rehosted:', created.data.rehost_failed);

  // 2. Preview: only GET /posts/{id} carries `html` (the working version).
  const preview = await client.GET('/posts/{id}', { params: { path: { id } } });
  if (!preview.data) throw new Error(`preview failed: ${preview.response.status} ${preview.error?.error}`);

  // 3. Publish. `pending_moderation` is a normal outcome: poll GET /posts/{id} for the result.
  const published = await client.POST('/posts/{id}/publish', { params: { path: { id } } });
  if (!published.data) {
    const retryAfter = published.response.headers.get('Retry-After');
    throw new Error(
      `publish failed: ${published.response.status} ${published.error?.error}${retryAfter ? `; retry in ${retryAfter} s` : ''}`,
    );
  }
  return { id, html: preview.data.html, status: published.data.status, canonicalPath: published.data.canonical_path };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await createPreviewAndPublish({
    baseUrl: process.env.AUTHOR_API_URL ?? 'http://localhost:3000',
    token: process.env.AUTHOR_API_TOKEN ?? '',
  });
  console.log(JSON.stringify(result, null, 2));
}
