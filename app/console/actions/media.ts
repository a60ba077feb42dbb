'use server';

import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { storeFromUrl } from '@/server/services/media/media-storage';
import { formString, runConsoleAction, type ActionOutcome } from '@/server/console/action';
import { markdownSnippet } from '@/server/console/media-library';
import { mediaDepsOf } from '@/server/runtime/request-contexts';

export type FromUrlOutcome = ActionOutcome<{ message: string; snippet: string; url: string }> | null;

/** POST /media/from-url from the console: the media window, then the same service. */
export async function storeMediaFromUrl(_prev: FromUrlOutcome, formData: FormData): Promise<FromUrlOutcome> {
  return runConsoleAction(formData, 'media', async ({ parts, session }) => {
    const media = await storeFromUrl(
      mediaDepsOf(parts),
      session.auth.account,
      formString(formData, 'url'),
      (await headers()).get('host'),
    );
    revalidatePath('/console/media');
    return {
      message:
        media.kind === 'gif'
          ? 'Stored: the animated GIF became a muted looping video.'
          : `Stored: ${media.width}×${media.height} ${media.mime_type}.`,
      snippet: markdownSnippet(media),
      url: media.url,
    };
  });
}
