import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type TestInfo } from '@playwright/test';

/**
 * An axe-core scan of the page as it is now (WCAG 2.1 A and AA): its summary is printed and
 * attached to the report, and a serious or critical violation fails the test. Article frames are
 * separate sandboxed documents (reader content, not console UI), so the scan stops at them.
 */
export async function scan(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.waitForLoadState('load');
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .exclude('iframe')
    .analyze();
  const byImpact: Record<string, number> = {};
  for (const v of results.violations)
    byImpact[v.impact ?? 'unknown'] = (byImpact[v.impact ?? 'unknown'] ?? 0) + v.nodes.length;
  const summary = `axe ${name}: ${results.passes.length} rules passed, ${results.violations.length} violated (${
    Object.entries(byImpact)
      .map(([impact, n]) => `${impact}: ${n} node(s)`)
      .join(', ') || 'none'
  })${results.violations.map((v) => `\n  - [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length})`).join('')}`;
  console.log(summary);
  await testInfo.attach(`axe-${name}`, { body: summary, contentType: 'text/plain' });
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`),
    name,
  ).toEqual([]);
}
