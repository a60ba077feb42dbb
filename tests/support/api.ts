import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createAccountFixture, sharedServiceEnv } from './shared-database';

/** HTTP helpers for integration tests: the real interface, nothing in-process. */
export const baseUrl = () => inject('baseUrl');

export function serviceEnv(): Record<string, string | undefined> {
  const extra = sharedServiceEnv();
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: extra.DATA_DIR };
  if (extra.DATABASE_URL) env.DATABASE_URL = extra.DATABASE_URL;
  return env;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function api<T = any>(
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  }
  const res = await fetch(`${baseUrl()}/api/v1/author${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  await (
    await import('./conformance')
  ).checkResponse({ method, path, status: res.status, headers: res.headers, text }, baseUrl());
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export function uniqueHandle(prefix = 'author'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/**
 * A fresh account, made by the service function the CLI's `account create` runs, with its
 * checks (a handle, limits named as `--limit NAME=N` names them), on the shared database
 * (shared-database.ts says why not through a CLI process); generous limits unless the test sets
 * its own. The same fields as the CLI prints.
 */
export async function newAccount(opts: { moderated?: boolean; admin?: boolean; limits?: Record<string, number> } = {}) {
  const limits = {
    read_per_min: 10000,
    write_per_min: 10000,
    publish_per_min: 10000,
    media_per_min: 10000,
    ...opts.limits,
  };
  return createAccountFixture({ handle: uniqueHandle(), admin: opts.admin, moderated: opts.moderated, limits });
}

export async function createPost(token: string, fields: Record<string, unknown> = {}) {
  const res = await api('POST', '/posts', { token, json: { title: 'A title', markdown: 'Some *text*.', ...fields } });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body;
}
