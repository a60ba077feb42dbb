import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { chargeWindow, chargeWindowBelow } from '../admission/window-charge';
import { RATE_CLASSES, type RateClass } from '../model/rate-classes';
import { limitFor, type Authenticated } from '../model/account';
import { ConsoleProblem } from './problems';

/**
 * The console spends the same per-account minute windows as the REST procedures
 * (server/api/trpc.ts `authorContext`): reading a page costs what GET /posts/{id} costs, saving costs
 * what PATCH costs, publishing what publish costs. Limits are per account, so an integration
 * and the console share them.
 *
 * The editor's autosave is the one exception (`AUTOSAVE`): it spends the same `write` window,
 * but only its first half (`autosaveCeiling`); past that it takes nothing and waits for the next
 * minute (`AutosaveWaits`). A manual save is charged as PATCH, as ever.
 */

/** What a console action spends: one unit of a rate class, or an autosave's unit of `write`. */
export const AUTOSAVE = 'autosave';
export type ConsoleCharge = RateClass | typeof AUTOSAVE;

/**
 * How many units of a minute's `write` window autosaves may bring it to: half of the limit,
 * rounded down. Autosaves run by themselves for as long as an editor stays open, a few seconds
 * after each pause in typing; with this ceiling they can never take more than half of a minute's
 * writes, so an integration sharing the account always keeps at least the other half, however
 * many editors are open. (An account allowed 1 write a minute has a ceiling of 0: its editor
 * never autosaves, and a manual save is charged as ever.)
 */
export function autosaveCeiling(writeLimit: number): number {
  return Math.floor(writeLimit / 2);
}

/** An autosave that found the minute's share for autosaves used: nothing was charged or saved. */
export class AutosaveWaits extends ConsoleProblem {
  constructor(
    /** Seconds until the window resets, when the autosave can try again. */
    readonly seconds: number,
    ceiling: number,
    limit: number,
  ) {
    super(
      `Autosave waits for the next minute: autosaves use at most ${ceiling} of the ${limit} ${RATE_CLASSES.write.words} your account is allowed per minute, so the API always keeps the rest. It saves again in ${seconds === 1 ? '1 second' : `${seconds} seconds`}, or save now.`,
    );
    this.name = 'AutosaveWaits';
  }
}

export async function spend(db: StatementRunner, auth: Authenticated, charge: ConsoleCharge): Promise<void> {
  if (charge === AUTOSAVE) return spendAutosave(db, auth);
  const state = await chargeWindow(db, auth.account, charge);
  if (!state.allowed) {
    const seconds = state.retryAfter === 1 ? '1 second' : `${state.retryAfter} seconds`;
    throw new ConsoleProblem(
      `Your account has used all ${state.limit} ${RATE_CLASSES[charge].words} allowed per minute (the API and the console share this limit). Try again in ${seconds}.`,
    );
  }
}

/** One unit of the `write` window while it is below the autosave ceiling; else `AutosaveWaits`. */
async function spendAutosave(db: StatementRunner, auth: Authenticated): Promise<void> {
  const limit = limitFor(auth.account, 'write');
  const ceiling = autosaveCeiling(limit);
  const charge = await chargeWindowBelow(db, auth.account, 'write', ceiling);
  if (!charge.charged) throw new AutosaveWaits(charge.retryAfter, ceiling, limit);
}
