import { expect, screenshot, signIn, test, openEditor } from './support/console';
import { api } from './support/api';
import { tokenOf } from './support/state';

/**
 * Defence in depth around the signed-in console: every console page forbids framing and
 * keeps loads, connections and form posts on this origin, while the preview routes keep
 * their own sandboxing policy (and stay frameable by the console). Scripts run only with the
 * per-request nonce (no 'unsafe-inline'), and the console still works under it: sign-in, and a
 * page whose client components react to typing. No page of the console, the API reference and
 * guide included, trips its own policy.
 */

/** The script-src directive of a CSP and the nonce it names. */
function scriptPolicy(csp: string): { scriptSrc: string; nonce: string | undefined } {
  const scriptSrc =
    csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('script-src')) ?? '';
  return { scriptSrc, nonce: /'nonce-([A-Za-z0-9+/=]+)'/.exec(scriptSrc)?.[1] };
}
test('console pages carry a CSP that forbids framing, and none of them violates it', async ({ page, request }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await signIn(page, tokenOf('leaky'));
  const nonces = new Set<string>();
  for (const path of [
    '/console',
    '/console/account',
    '/console/media',
    '/console/api-guide',
    '/console/api-reference',
  ]) {
    const response = await page.goto(path);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp, path).toContain("frame-ancestors 'none'");
    expect(csp, path).toContain("connect-src 'self'");
    expect(csp, path).toContain("form-action 'self'");
    expect(response?.headers()['x-frame-options'], path).toBe('DENY');
    expect(response?.headers()['cache-control'], path).toBe('no-store');
    const { scriptSrc, nonce } = scriptPolicy(csp);
    expect(scriptSrc, path).not.toContain("'unsafe-inline'");
    expect(scriptSrc, path).toContain("'strict-dynamic'");
    expect(nonce, path).toBeTruthy();
    // Every script Next rendered into the page carries this request's nonce (the browser hides
    // the attribute from the DOM, so the property is read).
    const scripts = await page
      .locator('script')
      .evaluateAll((nodes) => nodes.map((n) => (n as HTMLScriptElement).nonce));
    expect(scripts.length, path).toBeGreaterThan(0);
    expect(new Set(scripts), path).toEqual(new Set([nonce]));
    nonces.add(nonce!);
    await page.waitForLoadState('networkidle');
  }
  // A fresh nonce for every request, also for the same page.
  const again = scriptPolicy((await request.get('/console')).headers()['content-security-policy'] ?? '').nonce;
  expect(again).toBeTruthy();
  nonces.add(again!);
  expect(nonces.size).toBe(6);

  // The API reference is rendered on the server from the served document: every operation,
  // nothing to submit, no place to type a token.
  const served = await (await request.get('/api/v1/author/openapi.json')).json();
  // A path item holds operations under HTTP method names, beside fields such as `servers`.
  const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  const declared = Object.entries(served.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => methods.has(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
  const rendered = await page
    .locator('[data-operation]')
    .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-operation')));
  expect(rendered.sort()).toEqual(declared.sort());
  await expect(page.locator('[data-operation="PATCH /posts/{id}"]')).toContainText('If-Match');
  await expect(page.locator('#console-main').locator('form, input, textarea, button')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /try it out|authorize/i })).toHaveCount(0);
  await screenshot(page, 'api-reference');

  // The guide (docs/api.md) is one click away and renders its own headings and anchors.
  await page.getByRole('link', { name: 'API guide' }).first().click();
  await expect(page).toHaveURL(/\/console\/api-guide$/);
  await expect(page.getByTestId('api-guide').locator('h1').first()).toHaveText('The Author Publishing REST API');
  await expect(page.locator('#authentication')).toBeVisible();
  await screenshot(page, 'api-guide');

  const preview = await request.get('/console/preview/00000000-0000-4000-8000-000000000000');
  const previewCsp = preview.headers()['content-security-policy'] ?? '';
  expect(previewCsp.startsWith('sandbox')).toBe(true);
  expect(previewCsp).toContain("frame-ancestors 'self'");
  expect(previewCsp).not.toContain("frame-ancestors 'none'");

  // Client components hydrate under the policy: the editor notices typing before any save.
  const created = await api<{ id: string }>(tokenOf('leaky'), 'POST', '/posts', {
    title: 'Nonce check',
    markdown: 'Edited under the nonce policy.',
  });
  expect(created.status).toBe(201);
  await openEditor(page, created.body.id);
  await page.getByLabel('Title', { exact: true }).fill('Typed under the nonce policy');
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();

  expect(violations).toEqual([]);
});
