import { e2eState } from './state';

/**
 * The REST API as an integration calls it, from the test process (never from the browser):
 * used to arrange articles that the console then shows.
 */
export interface ApiPost {
  id: string;
  public_id: string;
  canonical_path: string;
  title: string;
  status: string;
  has_unpublished_changes: boolean;
}

export async function api<T = unknown>(
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${e2eState().baseUrl}/api/v1/author${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

export async function createPost(
  token: string,
  input: { title: string; markdown: string; subtitle?: string; tags?: string[] },
): Promise<ApiPost> {
  const res = await api<ApiPost>(token, 'POST', '/posts', input);
  if (res.status !== 201) throw new Error(`POST /posts → ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function publish(token: string, id: string): Promise<ApiPost> {
  const res = await api<ApiPost>(token, 'POST', `/posts/${id}/publish`);
  if (res.status !== 200) throw new Error(`publish → ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
