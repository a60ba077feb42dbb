/**
 * The console's article list with a cursor in its address, through the page: a forged cursor
 * (the unsigned `{"v":"zzz","id":"0…0"}` on the popularity sort, which used to reach SQL and
 * end in "Something went wrong" and an error-level "console action failed") shows the first
 * page with a notice, and the instance logs no error-level line; the page's own "Next page" link
 * still goes on. The console session is opened directly in the database, as sign-in would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../support/api';
import { startExtraService, type ExtraService } from './media-helpers';
import { openConsoleSession } from './console-session';

const SECRET = 'console-list-cursor-test-secret-0123456789abcdef';
const NOTICE = 'That page link was out of date or damaged, so the list starts again from the first page.';

describe('the console list with a cursor in its address', () => {
  let extra: ExtraService;
  let session: { cookie: string; csrf: string };
  beforeAll(async () => {
    extra = await startExtraService({ SESSION_SECRET: SECRET });
    const account = await newAccount();
    for (let i = 1; i <= 22; i++) {
      const created = await extra.call('POST', '/posts', {
        token: account.token,
        json: { title: `Cursor article ${String(i).padStart(2, '0')}`, markdown: `Body ${i}.` },
      });
      expect(created.status).toBe(201);
    }
    session = await openConsoleSession(SECRET, account.id);
  });
  afterAll(async () => {
    await extra?.stop();
  });

  const list = async (query: string) => {
    const res = await fetch(`${extra.service.baseUrl}/console?${query}`, { headers: { cookie: session.cookie } });
    return { status: res.status, html: await res.text() };
  };
  const rows = (html: string) => html.match(/class="article-row"/g)?.length ?? 0;
  const errorLines = () =>
    extra.service.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes('"level":"error"'));

  it('shows the first page and a notice for a forged cursor, and logs no error', async () => {
    const forged = Buffer.from(JSON.stringify({ v: 'zzz', id: '00000000-0000-0000-0000-000000000000' })).toString(
      'base64url',
    );
    const page = await list(`sort=popularity&cursor=${forged}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(NOTICE);
    expect(page.html).not.toContain('Something went wrong');
    expect(rows(page.html)).toBe(20);
    expect(page.html).not.toContain('← First page');
    // Request lines are written within 100 ms; an error line would be written at once.
    await new Promise((r) => setTimeout(r, 300));
    expect(errorLines()).toEqual([]);
  });

  it("follows the page's own Next page link without a notice", async () => {
    const first = await list('sort=popularity');
    const link = /<a [^>]*rel="next"[^>]*>/.exec(first.html)?.[0] ?? '';
    const next = /href="\/console\?([^"]*cursor=[^"]+)"/.exec(link)?.[1];
    expect(next).toBeDefined();
    const second = await list(next!.replaceAll('&amp;', '&'));
    expect(second.status).toBe(200);
    expect(second.html).not.toContain(NOTICE);
    expect(rows(second.html)).toBe(2);
    expect(second.html).toContain('← First page');
  });
});
