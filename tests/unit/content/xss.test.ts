/**
 * XSS corpus (DOMPurify, H5SC, PayloadsAllTheThings, OWASP): each payload as a whole document,
 * inside a paragraph and inside an island; no output may carry a script element, an event
 * handler or a script-capable URL (checked on the parsed output). The browser-level check that
 * nothing executes is e2e/xss.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { ContentRejectedError, renderArticleSync } from '../../../server/content';
import { xssPayloads } from './corpus';
import { safetyViolations } from './xss-invariants';

const payloads = xssPayloads();
const wrappers: [string, (payload: string) => string][] = [
  ['as the document', (p) => p],
  ['inside a paragraph', (p) => `Intro text ${p} outro`],
  ['inside a spoiler', (p) => `<details><summary>s</summary>\n${p}\n</details>`],
  [
    'inside a figure caption',
    (p) =>
      `<figure class="dp-figure"><img src="https://e.com/a.png"><figcaption class="dp-figure__caption">${p}</figcaption></figure>`,
  ],
  [
    'inside a link card title',
    (p) =>
      `<a class="dp-link-card" href="https://e.com/"><div class="dp-link-card__body"><div class="dp-link-card__title">${p}</div></div></a>`,
  ],
];

describe(`XSS corpus: ${payloads.length} payloads come out inert`, () => {
  for (const [where, wrap] of wrappers) {
    it(`no script element, event handler or dangerous URL survives ${where}`, () => {
      const failures: string[] = [];
      for (const { source, label, payload } of payloads) {
        let html: string;
        try {
          html = renderArticleSync({ markdown: wrap(payload), title: 'T' }).html;
        } catch (error) {
          if (error instanceof ContentRejectedError) continue;
          throw error;
        }
        const problems = safetyViolations(html);
        if (problems.length) failures.push(`${source} ${label}: ${problems.join('; ')}`);
      }
      expect(failures).toEqual([]);
    });
  }

  it('the invariant checker itself catches what it must', () => {
    expect(safetyViolations('<img src=x onerror=alert(1)>')).not.toEqual([]);
    expect(safetyViolations('<a href="jav&#x09;ascript:alert(1)">x</a>')).not.toEqual([]);
    expect(safetyViolations('<script>alert(1)</script>')).not.toEqual([]);
    expect(safetyViolations('<iframe src="https://evil.example/"></iframe>')).not.toEqual([]);
    expect(safetyViolations('<p>fine <a href="https://e.com/">x</a></p>')).toEqual([]);
  });
});
