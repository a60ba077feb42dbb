/**
 * The console's upload of a file already in the maintainer's library, against a real PostgreSQL,
 * through what the upload route (app/console/media/upload/route.ts) runs after its session,
 * Origin, CSRF and media-window checks: `storeConsoleUpload`. The same file a second time is the
 * first entry (same id), said so in words, with no second row and nothing more charged to the
 * day's quota; a different file, or the same file in another account's library, is stored as
 * ever; and POST /media's service still stores every upload it is given.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { storeConsoleUpload } from '../../server/console/media-library';
import { createAccount } from '../../server/services/access/accounts';
import { dailyMediaBytesUsed } from '../../server/services/access/account-usage';
import { storeUpload, type MediaAccount, type MediaDeps } from '../../server/services/media/media-storage';
import { readImage } from '../support/image-corpus';
import { domainDatabase, query } from './support';

// Next's marker that these modules run on the server only; there is no Next here.
vi.mock('server-only', () => ({}));

const parts = domainDatabase();
const db = () => parts.db();
const deps = (): MediaDeps => {
  const p = parts.parts();
  return { db: p.db, storage: p.storage, allowList: p.allowList, work: p.mediaWork };
};

async function account(): Promise<MediaAccount> {
  return (await createAccount(db(), `dup-${randomUUID().slice(0, 12)}`, {})).account;
}

/** A small PNG of one colour: a different colour is a different file. */
function png(r: number): Promise<Buffer> {
  return sharp({ create: { width: 24, height: 18, channels: 3, background: { r, g: 90, b: 40 } } })
    .png()
    .toBuffer();
}

async function rowsOf(accountId: string) {
  return query<{ id: string; kind: string; file_name: string | null; created_at: Date }>(
    db(),
    'rows_of',
    `SELECT id, kind, file_name, created_at FROM media WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
}

const NOTICE =
  /^This file is already in your library \(stored (\d{4}-\d\d-\d\d \d\d:\d\d) UTC\); the existing copy was used, and nothing was taken from today's media quota\.$/;

describe("the console's upload of a file already in the library", () => {
  it('answers the second identical upload with the first entry, says so, and stores and charges nothing', async () => {
    const author = await account();
    const bytes = await png(10);
    const first = await storeConsoleUpload(deps(), author, bytes, 'harbour.png');
    expect(first.reused).toBeNull();
    expect(first.media.snippet).toBe(`![](/api/media/${first.media.id})`);
    const charged = await dailyMediaBytesUsed(db(), author.id);
    expect(charged).toBe(first.media.byte_size);

    // Under another name, as a maintainer who renamed the file on their computer would send it.
    const second = await storeConsoleUpload(deps(), author, Buffer.from(bytes), 'harbour (1).png');
    expect(second.media).toEqual(first.media);
    const [row] = await rowsOf(author.id);
    expect(second.reused).toEqual({
      stored_at: new Date(row!.created_at).toISOString(),
      file_name: 'harbour.png',
      notice: expect.stringMatching(NOTICE),
    });
    expect(NOTICE.exec(second.reused!.notice)![1]).toBe(second.reused!.stored_at.slice(0, 16).replace('T', ' '));
    expect((await rowsOf(author.id)).map((r) => r.id)).toEqual([first.media.id]);
    expect(await dailyMediaBytesUsed(db(), author.id)).toBe(charged);
  });

  it('stores a different file as a new entry, charged as ever', async () => {
    const author = await account();
    const first = await storeConsoleUpload(deps(), author, await png(20), 'dawn.png');
    const other = await storeConsoleUpload(deps(), author, await png(21), 'dusk.png');
    expect(other.reused).toBeNull();
    expect(other.media.id).not.toBe(first.media.id);
    expect((await rowsOf(author.id)).map((r) => r.id)).toEqual([first.media.id, other.media.id]);
    expect(await dailyMediaBytesUsed(db(), author.id)).toBe(first.media.byte_size + other.media.byte_size);
  });

  it("never reuses another account's identical file", async () => {
    const [owner, stranger] = [await account(), await account()];
    const bytes = await png(30);
    const theirs = await storeConsoleUpload(deps(), owner, bytes, 'shared.png');
    const mine = await storeConsoleUpload(deps(), stranger, bytes, 'shared.png');
    expect(mine.reused).toBeNull();
    expect(mine.media.id).not.toBe(theirs.media.id);
    expect((await rowsOf(stranger.id)).map((r) => r.id)).toEqual([mine.media.id]);
    expect(await dailyMediaBytesUsed(db(), stranger.id)).toBe(mine.media.byte_size);
    expect((await rowsOf(owner.id)).map((r) => r.id)).toEqual([theirs.media.id]);
  });

  it('compares what is stored: files that differ only in what normalizing drops are the same entry', async () => {
    // The two files are not the same bytes (one has bytes after its end), but the stored file
    // would be: only the stored bytes' hash is kept, and the library would hold two equal files.
    const author = await account();
    const first = await storeConsoleUpload(deps(), author, readImage('crafted-png-16x16.png'), 'a.png');
    const again = await storeConsoleUpload(deps(), author, readImage('crafted-png-trailing-garbage.png'), 'b.png');
    expect(again.media.id).toBe(first.media.id);
    expect(again.reused?.notice).toMatch(NOTICE);
    expect(await rowsOf(author.id)).toHaveLength(1);
  });

  it('uses the stored looping video of an animated GIF uploaded again: no second video or poster', async () => {
    const author = await account();
    const gif = readImage('crafted-gif-animated-2-frames.gif');
    const first = await storeConsoleUpload(deps(), author, gif, 'spin.gif');
    expect(first.media.kind).toBe('gif');
    const charged = await dailyMediaBytesUsed(db(), author.id);
    const second = await storeConsoleUpload(deps(), author, gif, 'spin.gif');
    expect(second.media).toEqual(first.media);
    expect(second.media.poster_url).not.toBeNull();
    expect(second.reused?.notice).toMatch(NOTICE);
    expect((await rowsOf(author.id)).map((r) => r.kind).sort()).toEqual(['gif', 'image']);
    expect(await dailyMediaBytesUsed(db(), author.id)).toBe(charged);
  });

  it("never hands back a GIF video's poster, which the library does not list", async () => {
    const author = await account();
    const video = await storeConsoleUpload(deps(), author, readImage('crafted-gif-animated-2-frames.gif'), 'spin.gif');
    const posterId = /\/api\/media\/([0-9a-f-]{36})$/.exec(video.media.poster_url!)![1]!;
    const [poster] = await query<{ sha256: string }>(db(), 'poster_hash', `SELECT sha256 FROM media WHERE id = $1`, [
      posterId,
    ]);
    // The poster's own bytes, uploaded as a still PNG, normalize to the very same stored bytes.
    const stored = (await parts.parts().storage.get(posterId))!;
    const still = await storeConsoleUpload(
      deps(),
      author,
      Buffer.concat(await stored.stream.toArray()),
      'first-frame.png',
    );
    const [stillRow] = await query<{ sha256: string }>(db(), 'still_hash', `SELECT sha256 FROM media WHERE id = $1`, [
      still.media.id,
    ]);
    expect(stillRow!.sha256).toBe(poster!.sha256);
    expect(still.reused).toBeNull();
    expect(still.media.id).not.toBe(posterId);
  });
});

describe('POST /media (storeUpload)', () => {
  it('still stores every upload it is given, the same file twice included (the REST contract does not change)', async () => {
    const author = await account();
    const bytes = await png(40);
    const a = await storeUpload(deps(), author, bytes);
    const b = await storeUpload(deps(), author, bytes);
    expect(b.id).not.toBe(a.id);
    expect(await rowsOf(author.id)).toHaveLength(2);
    expect(await dailyMediaBytesUsed(db(), author.id)).toBe(a.byte_size + b.byte_size);
  });
});
