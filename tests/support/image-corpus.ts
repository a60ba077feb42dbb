import { readFileSync } from 'node:fs';
import { CORPUS } from './corpus-files';

/** The image fixtures of tests/fixtures/corpus/images and their measured manifest (provenance in tests/fixtures/README.md). */
const IMAGES = new URL('images/', CORPUS);

export interface ManifestEntry {
  file: string;
  format: string;
  animated: boolean;
  valid: boolean | null;
  width: number | null;
  height: number | null;
}

export const manifest: { files: ManifestEntry[] } = JSON.parse(readFileSync(new URL('manifest.json', IMAGES), 'utf8'));
export const readImage = (file: string) => readFileSync(new URL(file, IMAGES));
