import type { EntityManager } from '@mikro-orm/postgresql';
import { logLine } from '../log';
import { mediaStorage, outboundAllowList } from '../media/storage-instance';
import type { Authenticated } from './tokens';
import type { Rehoster } from './rehost-port';
import { createRehoster } from './rehost';

/** Chooses the rehoster for one author's write: the process's storage and outbound allow list. */
export function rehosterFor(em: EntityManager, auth: Authenticated): Rehoster {
  return createRehoster({ em, storage: mediaStorage(), allowList: outboundAllowList() }, auth.account, {
    log: (line) => logLine({ ...line, level: 'error' }),
  });
}
