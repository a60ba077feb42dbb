import { expect, screenshot, signIn, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * Defence in depth around the signed-in console: every console page forbids framing and
 * keeps loads, connections and form posts on this origin, while the preview routes keep
 * their own sandboxing policy (and stay frameable by the console). No page of the console,
 * the API reference included, trips its own policy.
 */
test('console pages carry a CSP that forbids framing, and none of them violates it', async ({ page, request }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await signIn(page, tokenOf('leaky'));
  for (const path of ['/console', '/console/account', '/console/media', '/console/api-reference']) {
    const response = await page.goto(path);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp, path).toContain("frame-ancestors 'none'");
    expect(csp, path).toContain("connect-src 'self'");
    expect(csp, path).toContain("form-action 'self'");
    expect(response?.headers()['x-frame-options'], path).toBe('DENY');
    await page.waitForLoadState('networkidle');
  }

  // The API reference renders locally, read-only: no "Try it out", no Authorize dialog.
  await expect(page.locator('.swagger-ui .opblock').first()).toBeVisible();
  expect(await page.locator('.swagger-ui .opblock').count()).toBeGreaterThanOrEqual(10);
  await page.locator('.swagger-ui .opblock-summary').first().click();
  await expect(page.getByRole('button', { name: /try it out/i })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /authorize/i })).toHaveCount(0);
  await screenshot(page, 'api-reference');

  const preview = await request.get('/console/preview/00000000-0000-4000-8000-000000000000');
  const previewCsp = preview.headers()['content-security-policy'] ?? '';
  expect(previewCsp.startsWith('sandbox')).toBe(true);
  expect(previewCsp).toContain("frame-ancestors 'self'");
  expect(previewCsp).not.toContain("frame-ancestors 'none'");

  expect(violations).toEqual([]);
});
