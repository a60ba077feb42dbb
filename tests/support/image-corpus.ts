import { readFileSync } from 'node:fs';

/** The image fixtures of ../shared/corpus/images and their measured manifest (see its README). */
export const IMAGES = new URL('../../../shared/corpus/images/', import.meta.url);

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
