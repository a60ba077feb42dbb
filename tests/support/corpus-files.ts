import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The test corpus committed under tests/fixtures/corpus (provenance and licences in
 * tests/fixtures/README.md). Resolved from this file's URL, not from the working directory, so
 * tests and benches find it wherever they are started from.
 */
export const CORPUS = new URL('../fixtures/corpus/', import.meta.url);

/** Filesystem path of a file or folder of the corpus, e.g. `corpusPath('articles')`. */
export const corpusPath = (relative: string): string => fileURLToPath(new URL(relative, CORPUS));

export const readCorpusJson = <T>(relative: string): T =>
  JSON.parse(readFileSync(new URL(relative, CORPUS), 'utf8')) as T;
