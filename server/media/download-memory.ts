/**
 * Bytes of downloaded image files held by this process at once, from-url and rehost together.
 * MEDIA_DOWNLOADS_IN_FLIGHT bounds how many downloads run, but each may hold up to 50 MiB from
 * its first byte until its image is decoded (16 × 50 MiB = 800 MiB); this budget
 * (MEDIA_DOWNLOAD_MEMORY_MB) bounds the bytes themselves. A download claims its declared
 * Content-Length when the response arrives and every further byte before it is kept
 * (download-budget.ts), and gives them back once its caller is done with the file.
 *
 * A download that would pass the budget fails at once rather than waiting: waiting halfway
 * through a body while holding its first bytes could deadlock downloads that wait on each
 * other. It is not the author's fault, so it is `unavailable` (503; a rehost records it as the
 * URL's cause and goes on).
 */
import { DomainError } from '../foundation/errors';
import { claimDownload, type ByteBudget } from './download-budget';
import type { Connector } from './fetch/types';

export class DownloadMemoryFullError extends DomainError {
  constructor() {
    super('unavailable', 'Too many image bytes are being downloaded at once; try again in a moment');
    this.name = 'DownloadMemoryFullError';
  }
}

/**
 * `download` (a fetch through the connector it is given, which wraps `inner`) and then `consume` of
 * its result, with the body's bytes claimed from `budget` from their arrival until `consume` ends.
 */
export async function holdingDownload<F, T>(
  inner: Connector,
  download: (connector: Connector) => Promise<F>,
  consume: (fetched: F) => Promise<T>,
  budget: ByteBudget,
): Promise<T> {
  const claim = claimDownload(budget, inner);
  try {
    let fetched: F;
    try {
      fetched = await download(claim.connector);
    } catch (err) {
      if (claim.exceeded) throw new DownloadMemoryFullError();
      throw err;
    }
    return await consume(fetched);
  } finally {
    claim.release();
  }
}
