import type { EntityManager } from '@mikro-orm/postgresql';
import type { Authenticated } from './tokens';
import { noRehost, type Rehoster } from './rehost-port';

/** Chooses the rehoster for one author's write (media issue wires the real one here). */
export function rehosterFor(_em: EntityManager, _auth: Authenticated): Rehoster {
  return noRehost;
}
