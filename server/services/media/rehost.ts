/**
 * The real Rehoster (docs/api.md "Rehosting images"): copies the external images of one article write
 * into our storage. Never throws: every failure lands in `failed`, every early stop in `warnings`.
 *
 * - URLs are deduplicated, so an image repeated in one write is fetched once.
 * - At most 100 distinct URLs and 50 MiB of downloads per write; the rest fails with a warning.
 *   The 50 MiB are claimed before they are held (download-budget.ts: a declared Content-Length
 *   at the response, every further byte before it is kept), so parallel downloads cannot hold
 *   more together; bytes fetched but not stored (not an image, refused) count toward it too,
 *   though not toward the daily quota, which is charged with stored sizes only.
 * - Downloads run `concurrency` at a time, so ten images cost about one download's time, and
 *   take a turn of the process-wide download cap (media/work.ts) like from-url; their bytes
 *   are claimed from the process's download memory until decoded (download-memory.ts), and a
 *   URL refused for it fails with that cause while the others go on.
 * - Each attempt takes one unit of the media minute window before it downloads (so a write
 *   with more images than the window cannot download them all first), and each stored image is
 *   charged to the daily quota with its stored size. When either runs out, nothing more is
 *   started: the remaining URLs fail and the reason goes into `warnings`.
 * - Animated images are refused (their URL fails): an `<img>` cannot show the MP4 that
 *   from-url makes of a GIF, and its first frame alone would silently change the article. A
 *   warning points to the GIF island instead.
 */
import { isFetchError, MAX_FETCH_BYTES, safeFetch, type SafeFetchOptions } from '../../media/safe-fetch';
import { ByteBudget, claimDownload } from '../../media/download-budget';
import { DownloadMemoryFullError, holdingDownload } from '../../media/download-memory';
import { undiciConnector } from '../../media/fetch/undici-connector';
import { inspectAndNormalizeImage, isImageError } from '../../media/image';
import { chargeWindowRow, windowAfter } from '../../admission/window-charge';
import { dailyQuotaExhausted } from '../access/account-usage';
import { commitImage, DailyQuotaExceededError, type MediaAccount, type MediaDeps } from './media-storage';
import type { StoredImage } from '../../data/posts/writes';
import type { Rehoster, RehostOutcome } from './rehost-port';
import { inSpan, TRACING } from '../../foundation/tracing';

const REHOST_MAX_URLS = 100;
const REHOST_MAX_BYTES = 50 * 1024 * 1024;
/** 20 photos at 200 ms each: 6 → ~1.25 s, 8 → ~1.05 s on 2 cores (bench/media-api.ts); decoding is the rest. */
const REHOST_CONCURRENCY = 8;

export interface RehostOptions {
  maxUrls?: number;
  maxBytes?: number;
  concurrency?: number;
  /** Extra safeFetch options (timeouts); the allow list comes from deps. */
  fetch?: Omit<SafeFetchOptions, 'allowList' | 'maxBytes' | 'field'>;
  log?: (line: Record<string, unknown>) => void;
}

type Stop = 'minute' | 'quota' | 'bytes' | 'storage';

export function createRehoster(deps: MediaDeps, account: MediaAccount, options: RehostOptions = {}): Rehoster {
  return {
    rehost: (_accountId, urls) =>
      TRACING ? tracedRehost(deps, account, urls, options) : rehostAll(deps, account, urls, options),
  };
}

/** Traces on: one write's rehosting as a `rehost` span, counts only (each download is a `media.download` under it). */
function tracedRehost(deps: MediaDeps, account: MediaAccount, urls: string[], options: RehostOptions) {
  return inSpan('rehost', { attributes: { 'rehost.urls': new Set(urls).size } }, async (span) => {
    const outcome = await rehostAll(deps, account, urls, options);
    span.setAttribute('rehost.stored', Object.keys(outcome.stored).length);
    span.setAttribute('rehost.failed', outcome.failed.length);
    return outcome;
  });
}

async function rehostAll(
  deps: MediaDeps,
  account: MediaAccount,
  urls: string[],
  options: RehostOptions,
): Promise<RehostOutcome> {
  const maxUrls = options.maxUrls ?? REHOST_MAX_URLS;
  const maxBytes = options.maxBytes ?? REHOST_MAX_BYTES;
  const concurrency = Math.max(1, options.concurrency ?? REHOST_CONCURRENCY);

  const unique = [...new Set(urls)];
  const accepted = unique.slice(0, maxUrls);
  const overflow = unique.slice(maxUrls);

  const stored: Record<string, StoredImage> = {};
  const failed = new Set<string>(overflow);
  const causes: Record<string, string> = {};
  for (const url of overflow) causes[url] = `not stored: at most ${maxUrls} external images per write`;
  const hints: string[] = [];
  let stop: Stop | null = null;
  const bytes = new ByteBudget(maxBytes);
  let next = 0;

  const attempt = async (url: string): Promise<void> => {
    const window = windowAfter(await chargeWindowRow(deps.db, account.id, 'media'), account.mediaPerMin);
    if (!window.allowed) return void (stop ??= 'minute');
    if (await dailyQuotaExhausted(deps.db, account)) return void (stop ??= 'quota');
    if (bytes.left <= 0) return void (stop ??= 'bytes');
    const claim = claimDownload(bytes, options.fetch?.connector ?? undiciConnector);
    // The source file's bytes stay claimed from the process's download memory until decoded.
    const decoded = await holdingDownload(
      claim.connector,
      async (connector) => {
        try {
          return await deps.work.downloads.run(() =>
            safeFetch(url, {
              ...options.fetch,
              connector,
              allowList: deps.allowList,
              maxBytes: MAX_FETCH_BYTES,
              field: 'image',
            }),
          );
        } catch (err) {
          // Refused for what is left of this write's budget, not for its own size: the per-write cap.
          if (claim.exceeded) return null;
          throw err;
        } finally {
          claim.settle();
        }
      },
      async (fetched) =>
        fetched && {
          image: await inspectAndNormalizeImage(fetched.buffer, { field: 'image' }),
          finalUrl: fetched.finalUrl,
        },
      deps.work.memory,
    );
    if (!decoded) return void (stop ??= 'bytes');
    const { image, finalUrl } = decoded;
    const media = await commitImage(deps, account, image, finalUrl);
    stored[url] = { id: media.id, width: media.width, height: media.height };
  };

  const worker = async () => {
    while (stop === null && next < accepted.length) {
      const url = accepted[next++]!;
      try {
        await attempt(url);
      } catch (err) {
        if (err instanceof DailyQuotaExceededError) stop ??= 'quota';
        else if (err instanceof Error && err.name === 'StorageUnavailableError') stop ??= 'storage';
        else if (isImageError(err) && err.problem === 'animated') {
          hints.push(
            `${url}: animated images are not rehosted; store it with POST /media/from-url and show it with the GIF island`,
          );
          causes[url] = 'animated images are not rehosted';
        } else if (err instanceof DownloadMemoryFullError)
          causes[url] = 'not stored: too many images are being downloaded at once; try again in a moment';
        else if (isFetchError(err) || isImageError(err)) causes[url] = withoutField(err.message);
        else {
          causes[url] = 'could not store the image';
          options.log?.({ level: 'error', msg: 'rehost failed', url, error: String(err) });
        }
      }
      if (!stored[url]) failed.add(url);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, accepted.length) }, worker));

  // Whatever was never started after a stop fails too.
  for (const url of accepted.slice(next)) failed.add(url);
  const warnings = [...hints];
  const notStored = accepted.filter((u) => failed.has(u)).length;
  if (stop) {
    const warning = stopWarning(stop, account, maxBytes, notStored);
    warnings.unshift(warning);
    // Images the stop kept from being tried (or that it interrupted) fail for that reason.
    for (const url of failed)
      causes[url] ??= `not stored: ${warning.replace(/^rehost stopped: /, '').replace(/;.*$/, '')}`;
  }
  if (overflow.length > 0)
    warnings.unshift(`rehost: at most ${maxUrls} external images per write; ${overflow.length} not stored`);
  const failedInOrder = unique.filter((u) => failed.has(u));
  return {
    stored,
    failed: failedInOrder,
    causes: Object.fromEntries(failedInOrder.map((u) => [u, causes[u] ?? 'could not store the image'])),
    warnings,
  };
}

function stopWarning(stop: Stop, account: MediaAccount, maxBytes: number, notStored: number): string {
  const tail = `; ${notStored} image(s) not stored`;
  switch (stop) {
    case 'minute':
      return `rehost stopped: media limit of ${account.mediaPerMin} per minute reached${tail}`;
    case 'quota':
      return `rehost stopped: daily media quota of ${account.dailyMediaBytes} bytes reached${tail}`;
    case 'bytes':
      return `rehost stopped: at most ${maxBytes} bytes (50 MiB) of images per write${tail}`;
    case 'storage':
      return `rehost stopped: media storage temporarily unavailable${tail}`;
  }
}

/** Fetch and image errors read "image: <what>"; the cause beside a URL needs only the what. */
function withoutField(message: string): string {
  return message.replace(/^[a-z_]+: /, '');
}
