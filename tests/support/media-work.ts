import { createMediaWork, type MediaWork } from '../../server/media/work';

/** Media work limits as a test process's own (the service builds its from env in create-app.ts). */
export function testMediaWork(overrides: Partial<Parameters<typeof createMediaWork>[0]> = {}): MediaWork {
  return createMediaWork({
    downloadsInFlight: 4,
    downloadMemoryBytes: 64 * 1024 * 1024,
    gifConversionsInFlight: 1,
    ...overrides,
  });
}
