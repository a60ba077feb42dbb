import { expect, screenshot, signIn, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * Defence in depth around the signed-in console: every console page forbids framing and
 * keeps loads, connections and form posts on this origin, while the preview routes keep
 * their own sandboxing policy (and stay frameable by the console). No page of the console,
 * the API reference and guide included, trips its own policy.
 */
test('console pages carry a CSP that forbids framing, and none of them violates it', async ({ page, request }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await signIn(page, tokenOf('leaky'));
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
    await page.waitForLoadState('networkidle');
  }

  // The API reference is rendered on the server from the served document: every operation,
  // nothing to submit, no place to type a token.
  const served = await (await request.get('/api/v1/author/openapi.json')).json();
  const declared = Object.entries(served.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
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

  expect(violations).toEqual([]);
});
