import { createPost } from './support/api';
import { expect, signIn, test } from './support/console';
import { tokenOf } from './support/state';

/**
 * The article list on a phone (390 × 844): a row is its title, its state and its eight counters
 * on two short lines, so five or more articles fit on a screen, nothing scrolls sideways, and
 * every counter keeps its name (read by screen readers, shortened with an ellipsis only when
 * the screen is narrower still).
 */
test('a phone shows five or more articles a screen, every counter named, nothing sideways', async ({ page }) => {
  const token = tokenOf('pocket');
  for (let i = 0; i < 6; i++) await createPost(token, { title: `Pocket note ${i}`, markdown: 'Short.' });
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, token);
  const rows = page.getByRole('listitem').filter({ hasText: 'Pocket note' });
  await expect(rows).toHaveCount(6);
  const heights = await rows.evaluateAll((items) => items.map((li) => li.getBoundingClientRect().height));
  for (const height of heights) expect(height).toBeLessThanOrEqual(125);
  const counters = rows.first().getByRole('definition');
  await expect(counters).toHaveCount(8);
  await expect(rows.first().getByText('Full reads')).toBeVisible();
  const sideways = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(sideways).toBe(0);
});
