import { env } from '../foundation/env';
import { pointsAtServiceOutsideMedia } from './urls';

/**
 * The origins this service's public pages are served from (PUBLIC_ORIGIN), as the conversion
 * and the cover rules need them: an image there outside `/api/media/` is never kept in an
 * article (urls.ts `pointsAtServiceOutsideMedia`). Without PUBLIC_ORIGIN only reader beacon
 * paths are recognised, on any host.
 */
export const SELF_ORIGINS: readonly string[] = env.PUBLIC_ORIGIN ? [env.PUBLIC_ORIGIN] : [];

/** Whether an absolute image address points back at this service outside its stored files. */
export function pointsAtThisService(absolute: string): boolean {
  return pointsAtServiceOutsideMedia(absolute, SELF_ORIGINS);
}
