/**
 * Container facts sharp does not report: APNG frame count (libvips decodes only the first
 * frame of an APNG and says nothing) and AVIF image sequences (sharp cannot open them at all).
 */

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Frames announced by an acTL chunk placed before the first IDAT (APNG spec: an acTL after IDAT
 * is ignored), or 1. A single-frame APNG is a still image.
 */
export function pngFrameCount(buf: Buffer): number {
  if (buf.length < 8 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) return 1;
  for (let offset = 8; offset + 8 <= buf.length;) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    if (type === 'IDAT' || type === 'IEND') return 1;
    if (type === 'acTL' && offset + 12 <= buf.length) return Math.max(1, buf.readUInt32BE(offset + 8));
    offset += 12 + length;
  }
  return 1;
}

/** ISO-BMFF `ftyp` major and compatible brands, or [] when the box is absent. */
function ftypBrands(buf: Buffer): string[] {
  if (buf.length < 16 || buf.toString('latin1', 4, 8) !== 'ftyp') return [];
  const size = Math.min(buf.readUInt32BE(0), buf.length);
  const brands = [buf.toString('latin1', 8, 12)];
  for (let offset = 16; offset + 4 <= size; offset += 4) brands.push(buf.toString('latin1', offset, offset + 4));
  return brands;
}

/** `avis` (AVIF image sequence) in the ftyp brands: an animated AVIF. */
export const isAvifSequence = (buf: Buffer) => ftypBrands(buf).includes('avis');

/** Whether a WebP holds a lossless (VP8L) bitstream, so re-encoding can stay lossless. */
export function isLosslessWebp(buf: Buffer): boolean {
  if (buf.length < 16 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WEBP')
    return false;
  for (let offset = 12; offset + 8 <= buf.length;) {
    const type = buf.toString('latin1', offset, offset + 4);
    if (type === 'VP8L') return true;
    if (type === 'VP8 ') return false;
    offset += 8 + buf.readUInt32LE(offset + 4) + (buf.readUInt32LE(offset + 4) & 1);
  }
  return false;
}
