/**
 * The one MediaStorage of this process, built from the validated env on first use. Kept on
 * globalThis because the launcher and the code Next bundles are separate module instances in
 * one process (as in server/lifecycle.ts), and Next's dev server re-evaluates modules.
 */
import { env } from '../env';
import { createMediaStorage, mediaStorageConfigFromEnv, type MediaStorage } from './storage';
import { parseAllowList, type AllowList } from './address-policy';

const holder = globalThis as unknown as { __publishingMediaStorage?: MediaStorage; __publishingAllowList?: AllowList };

export function mediaStorage(): MediaStorage {
  holder.__publishingMediaStorage ??= createMediaStorage(mediaStorageConfigFromEnv(env));
  return holder.__publishingMediaStorage;
}

/** ALLOWED_PRIVATE_ADDRESSES and ALLOWED_OUTBOUND_PORTS, parsed once (env.ts refused a malformed entry at start). */
export function outboundAllowList(): AllowList {
  holder.__publishingAllowList ??= parseAllowList(env.ALLOWED_PRIVATE_ADDRESSES, env.ALLOWED_OUTBOUND_PORTS);
  return holder.__publishingAllowList;
}
