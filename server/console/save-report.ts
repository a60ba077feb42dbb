/**
 * The `rehost_failed` and `warnings` of a write, in words an author can act on. Each failed
 * image has its own cause from the rehost (address refused, HTTP status, size, format, a limit
 * that stopped copying); the REST response names only the URLs, the console says why. Without
 * a cause (a result from elsewhere), the warnings and the usual reasons a download fails are
 * used instead.
 */
export interface FailedImage {
  url: string;
  reason: string;
  /** False when trying again cannot help (a refused address, an animated or unusable file). */
  retryable: boolean;
}

export interface ExplainedWarning {
  text: string;
  explanation: string;
}

const DOWNLOAD_FAILED =
  'The download failed: the host did not answer or answered with an error, the address points into a private network, the file is over 50 MiB, or it is not a JPEG, PNG, WebP, AVIF or GIF image. Check that the address opens as an image in a browser, then retry.';

const ANIMATED =
  'It is animated: an image shows only its first frame. Store it under Media (from a URL) and insert it with the GIF island instead.';

function explain(text: string): { explanation: string; stop: boolean } {
  let m: RegExpExecArray | null;
  if ((m = /^rehost stopped: media limit of (\d+) per minute reached/.exec(text)))
    return {
      explanation: `Copying images stopped: your account may store ${m[1]} media per minute and this save reached it. Wait a minute, then retry.`,
      stop: true,
    };
  if ((m = /^rehost stopped: daily media quota of (\d+) bytes reached/.exec(text)))
    return {
      explanation: `Copying images stopped: today's media quota (${(Number(m[1]) / 1024 / 1024).toFixed(0)} MiB) is used up. Retry tomorrow (UTC), or upload smaller images.`,
      stop: true,
    };
  if (/^rehost stopped: at most \d+ bytes/.test(text))
    return {
      explanation:
        'Copying images stopped: one save downloads at most 50 MiB of images. Retry: the images already copied are kept, so the next save continues with the rest.',
      stop: true,
    };
  if (/^rehost stopped: media storage temporarily unavailable/.test(text))
    return { explanation: 'Copying images stopped: media storage did not answer. Retry in a moment.', stop: true };
  if ((m = /^rehost: at most (\d+) external images per write/.exec(text)))
    return {
      explanation: `One save copies at most ${m[1]} external images; the rest stay external. Retry to copy the next ones.`,
      stop: true,
    };
  if (/: animated images are not rehosted/.test(text)) return { explanation: ANIMATED, stop: false };
  return { explanation: '', stop: false };
}

/** Causes that the same address gives again on every try. */
const FINAL_CAUSE =
  /^(address not allowed|animated images are not rehosted|not a supported image|empty file|corrupt)|larger than|too large/;

/** One image's cause (as the rehost words it) as a sentence with what to do about it. */
function explainCause(cause: string, stop: { explanation: string } | undefined): string {
  let m: RegExpExecArray | null;
  if (/^animated images are not rehosted/.test(cause)) return ANIMATED;
  if (/^address not allowed/.test(cause))
    return 'Its address is in a private, local or otherwise refused network, or on a port other than 80 and 443: the service does not download from there. Host the image publicly, or upload the file under Media and insert it.';
  if (/^could not fetch the image \(the source took too long\)/.test(cause))
    return 'The source took too long to send the image. Retry, or upload the file under Media.';
  if (/^could not fetch the image/.test(cause))
    return 'The download failed: the host could not be reached or broke off. Check that the address opens in a browser, then retry.';
  if ((m = /^source answered HTTP (\d+)/.exec(cause)))
    return `The host answered HTTP ${m[1]} instead of the image. Check the address, then retry.`;
  if (/larger than|too large/.test(cause)) return `The file is too large (${cause}). Use a smaller image.`;
  if (/^(not a supported image|empty file|corrupt)/.test(cause))
    return `It is not an image the service stores (${cause}): use a JPEG, PNG, WebP, AVIF or GIF file.`;
  if (/^not stored: /.test(cause))
    return `Not copied: ${cause.slice('not stored: '.length)}.${stop ? ` ${stop.explanation}` : ' Retry.'}`;
  return `The service could not store it (${cause}). Retry.`;
}

export function explainSave(
  rehostFailed: string[],
  warnings: string[],
  causes: Record<string, string> = {},
): { images: FailedImage[]; warnings: ExplainedWarning[] } {
  const explained = warnings.map((text) => ({ text, ...explain(text) }));
  const stop = explained.find((w) => w.stop);
  const images = rehostFailed.map((url): FailedImage => {
    const cause = causes[url];
    if (cause) return { url, reason: explainCause(cause, stop), retryable: !FINAL_CAUSE.test(cause) };
    if (warnings.some((w) => w.startsWith(`${url}: animated`))) return { url, reason: ANIMATED, retryable: false };
    return {
      url,
      retryable: true,
      reason: stop
        ? `Not copied, either because copying stopped (see below) or because the download failed. ${stop.explanation}`
        : DOWNLOAD_FAILED,
    };
  });
  return { images, warnings: explained.map(({ text, explanation }) => ({ text, explanation })) };
}
