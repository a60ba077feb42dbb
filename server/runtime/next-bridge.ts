import type { ConsoleParts } from './parts';

/**
 * The one bridge to the code Next bundles for the console. Next loads its own copy of the server
 * modules in the console's thread (console-thread.ts), so the console cannot import the parts
 * that thread built: the thread hands them over here before Next loads anything, and the console
 * takes them from here. This is the only module that reads or writes globalThis (the console
 * thread's own: a worker thread has a globalThis of its own).
 */
const KEY = Symbol.for('author-publishing.console-parts');

type Holder = { [KEY]?: ConsoleParts };

export function handPartsToNext(parts: ConsoleParts): void {
  (globalThis as Holder)[KEY] = parts;
}

/** The console thread's parts, for Next's copy of the modules. */
export function partsFromConsoleThread(): ConsoleParts {
  const parts = (globalThis as Holder)[KEY];
  if (!parts) throw new Error('the console runs in the console thread (npm start): no parts were handed over');
  return parts;
}
