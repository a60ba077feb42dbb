import type { AppParts } from './parts';

/**
 * The one bridge to the code Next bundles for the console. Next loads its own copy of the server
 * modules in the same process, so the console cannot import the launcher's parts: the launcher
 * hands them over here before Next loads anything, and the console takes them from here. This is
 * the only module that reads or writes globalThis.
 */
const KEY = Symbol.for('author-publishing.app-parts');

type Holder = { [KEY]?: AppParts };

export function handPartsToNext(parts: AppParts): void {
  (globalThis as Holder)[KEY] = parts;
}

/** The launcher's parts, for the console's copy of the modules. */
export function partsFromLauncher(): AppParts {
  const parts = (globalThis as Holder)[KEY];
  if (!parts) throw new Error('the console runs inside the launcher (npm start): no parts were handed over');
  return parts;
}
