import type { Blobs } from '../wire/blobs.js';

/**
 * The bytes of a value's JSON as it leaves the proxy: a payload kept as bytes counts as the literal it
 * stands for, not as its marker (wire/blobs.ts).
 */
export function jsonBytes(value: unknown, blobs: Blobs): number {
  let bytes = 0;
  for (const piece of blobs.fill(JSON.stringify(value), true))
    bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  return bytes;
}
