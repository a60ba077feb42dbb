/**
 * Content type from the bytes alone (never the client's name or header). Returns one of the
 * accepted formats, or a short label of what the bytes are, for the 400 message.
 */
import { fileTypeFromBuffer } from 'file-type';

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif';

export const MIME_TYPES: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
};

const BY_MIME: Record<string, ImageFormat> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/apng': 'png', // animation is decided from the acTL frame count, not from the mere chunk
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'gif',
};

export type Sniffed = { ok: true; format: ImageFormat } | { ok: false; label: string };

export async function sniffImage(buffer: Uint8Array): Promise<Sniffed> {
  const detected = await fileTypeFromBuffer(buffer).catch(() => undefined);
  if (detected && BY_MIME[detected.mime]) return { ok: true, format: BY_MIME[detected.mime] };
  if (detected && detected.ext !== 'xml') return { ok: false, label: detected.ext };
  return { ok: false, label: textLabel(buffer) };
}

/** file-type knows no SVG/HTML/plain text; a peek at the start is enough to name them. */
function textLabel(buffer: Uint8Array): string {
  const head = Buffer.from(buffer.subarray(0, 4096))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (/<svg[\s>]/.test(head)) return 'svg';
  if (/^<!doctype html|<html[\s>]|<head[\s>]|<body[\s>]|<script[\s>]/.test(head)) return 'html';
  if (head.startsWith('<?xml') || head.startsWith('<')) return 'xml';
  if (/^[{[]/.test(head)) return 'json';
  if (head.length > 0 && !/[\u0000-\u0008\u000e-\u001f]/.test(head)) return 'text';
  return 'unknown format';
}
