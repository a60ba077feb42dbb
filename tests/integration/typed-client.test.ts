import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createPreviewAndPublish } from '../../docs/typed-client-example';
import { api, baseUrl, newAccount } from '../support/api';
import { checkResponse, DOCUMENT_PATH } from '../support/conformance';
import { ROOT } from '../support/service';

/**
 * The README's typed client (docs/typed-client-example.ts) cannot rot: its types are what
 * openapi-typescript makes of the served document today, it compiles against them, and it
 * creates, previews and publishes an article on the running service.
 */
const run = promisify(execFile);
const TYPES = path.join(ROOT, 'docs', 'author-api.d.ts');
const EXAMPLE = path.join(ROOT, 'docs', 'typed-client-example.ts');

describe('typed client from the OpenAPI document', () => {
  it('docs/author-api.d.ts is what openapi-typescript generates from the served document', async () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'openapi-types-')), 'author-api.d.ts');
    const cli = path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    await run(process.execPath, [cli, `${baseUrl()}${DOCUMENT_PATH}`, '-o', out], { cwd: ROOT });
    const fresh = readFileSync(out, 'utf8');
    // UPDATE_OPENAPI_TYPES=1 rewrites the committed copy after a deliberate contract change.
    if (process.env.UPDATE_OPENAPI_TYPES === '1') writeFileSync(TYPES, fresh);
    expect(
      readFileSync(TYPES, 'utf8') === fresh,
      'docs/author-api.d.ts is stale: rerun this test with UPDATE_OPENAPI_TYPES=1 and commit the result',
    ).toBe(true);
  });

  it('the example compiles against the generated types', async () => {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'esnext',
      '--moduleResolution',
      'bundler',
      '--target',
      'es2022',
      '--skipLibCheck',
      '--types',
      'node',
      EXAMPLE,
    ];
    const result = await run(process.execPath, [tsc, ...args], { cwd: ROOT }).catch((err: { stdout: string }) => ({
      stdout: err.stdout,
      failed: true,
    }));
    expect(result.stdout).toBe('');
  });

  it('the example creates, previews and publishes an article on the running service', async () => {
    const { token } = await newAccount();
    // Every response the client receives is checked against the document, like api()'s.
    const conformingFetch = async (request: Request) => {
      const response = await fetch(request);
      const url = new URL(request.url);
      await checkResponse({
        method: request.method,
        path: url.pathname + url.search,
        status: response.status,
        headers: response.headers,
        text: await response.clone().text(),
      });
      return response;
    };
    const result = await createPreviewAndPublish({ baseUrl: baseUrl(), token, fetch: conformingFetch });
    expect(result.status).toBe('published');
    expect(result.html).toContain('<strong>openapi-fetch</strong>');
    const stored = await api('GET', `/posts/${result.id}`, { token });
    expect(stored.body).toMatchObject({
      status: 'published',
      has_unpublished_changes: false,
      canonical_path: result.canonicalPath,
    });
  });
});
