import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { chargeWindow } from '../admission/window-charge';
import { RATE_CLASSES, type RateClass } from '../model/rate-classes';
import type { Authenticated } from '../model/account';
import { ConsoleProblem } from './problems';

/**
 * The console spends the same per-account minute windows as the REST procedures
 * (server/api/trpc.ts `authorContext`): reading a page costs what GET /posts/{id} costs, saving costs
 * what PATCH costs, publishing what publish costs. Limits are per account, so an integration
 * and the console share them.
 */
export async function spend(db: StatementRunner, auth: Authenticated, cls: RateClass): Promise<void> {
  const state = await chargeWindow(db, auth.account, cls);
  if (!state.allowed) {
    const seconds = state.retryAfter === 1 ? '1 second' : `${state.retryAfter} seconds`;
    throw new ConsoleProblem(
      `Your account has used all ${state.limit} ${RATE_CLASSES[cls].words} allowed per minute (the API and the console share this limit). Try again in ${seconds}.`,
    );
  }
}
