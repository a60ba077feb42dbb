import 'server-only';
import { DomainError } from '../foundation/errors';
import { isDatabaseUnavailable } from '../../db/errors';
import { logLine } from '../foundation/log';

/**
 * Everything the console shows when something fails is a sentence, never a JSON body or a
 * stack: maintainers are told what went wrong and what to do, in words.
 */
export class ConsoleProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConsoleProblem';
  }
}

export function describeProblem(err: unknown): string {
  if (err instanceof ConsoleProblem) return err.message;
  if (err instanceof DomainError) {
    if (err.kind === 'not_found') return 'That article no longer exists (it may have been deleted).';
    if (err.kind === 'stale') {
      return 'This article was changed elsewhere (in another tab, through the API or by a moderator) since you opened it, so your changes were not saved over it: reload the page to see the current version, or compare it with your text first.';
    }
    if (err.name === 'StorageUnavailableError') return 'Media storage is unavailable right now. Try again in a moment.';
    if (err.kind === 'unavailable')
      return 'A service the console depends on is unavailable right now. Try again in a moment.';
    return sentence(err.message);
  }
  if (isDatabaseUnavailable(err)) return 'The database is not answering right now. Try again in a moment.';
  logLine({
    level: 'error',
    msg: 'console action failed',
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  });
  return 'Something went wrong on our side. Try again; if it keeps happening, tell the operator.';
}

/** Service messages read "title: must not be empty"; the console shows them as a sentence. */
function sentence(message: string): string {
  const trimmed = message.trim();
  const capitalized = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalized) ? capitalized : `${capitalized}.`;
}
