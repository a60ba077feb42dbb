/**
 * The `rehost_failed` and `warnings` of a write, in words an author can act on. The service
 * reports failed image URLs without a per-image cause, so an image's reason comes from the
 * warning that names it (an animated image) or that stopped copying (a limit), and otherwise
 * lists what makes a download fail.
 */
export interface FailedImage {
  url: string;
  reason: string;
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

export function explainSave(
  rehostFailed: string[],
  warnings: string[],
): { images: FailedImage[]; warnings: ExplainedWarning[] } {
  const explained = warnings.map((text) => ({ text, ...explain(text) }));
  const stop = explained.find((w) => w.stop);
  const images = rehostFailed.map((url) => {
    if (warnings.some((w) => w.startsWith(`${url}: animated`))) return { url, reason: ANIMATED };
    return {
      url,
      reason: stop
        ? `Not copied, either because copying stopped (see below) or because the download failed. ${stop.explanation}`
        : DOWNLOAD_FAILED,
    };
  });
  return { images, warnings: explained.map(({ text, explanation }) => ({ text, explanation })) };
}
