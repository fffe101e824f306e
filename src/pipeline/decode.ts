import { blobLength, blobSegments, isBlobMarker } from '../transports/blobs.js';
import { isFullyBase64 } from './detect/base64.js';


/**
 * The bytes of a base64 string (standard or URL-safe alphabet, line breaks allowed), or undefined
 * if it is not valid base64: never garbage bytes.
 */
export function decodeBase64Strict(value: string): Buffer | undefined {
  if (isBlobMarker(value)) {
    const segments = blobSegments(value);
    return segments ? decodeBase64Segments(segments, blobLength(value)) : undefined;
  }
  // Node's decoder skips what is not base64 and stops at '=', so a valid string is exactly the one
  // that decodes to the length its characters promise; only a wrapped one needs the slow check.
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  const characters = value.length - padding;
  if (characters === 0 || characters % 4 === 1 || (padding > 0 && value.length % 4 !== 0)) return undefined;
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === Math.floor((characters * 3) / 4)) return bytes;
  return isFullyBase64(value) ? bytes : undefined;
}

/**
 * Decodes base64 held as bytes (a payload kept out of the heap's strings) piece by piece, so no
 * string of the whole payload is ever made. Only the unwrapped form, the one a JSON string without
 * escapes can hold, is accepted (either alphabet).
 */
function decodeBase64Segments(segments: readonly Buffer[], length: number): Buffer | undefined {
  const padding = trailingPadding(segments);
  const end = length - padding;
  if ((padding > 0 && length % 4 !== 0) || end % 4 === 1 || end <= 0) return undefined;
  const out = Buffer.allocUnsafe(Math.floor((end * 3) / 4));
  let written = 0;
  let carry = '';
  let consumed = 0;
  for (const segment of segments) {
    const take = Math.min(segment.length, end - consumed);
    if (take <= 0) break;
    consumed += take;
    const text = carry + segment.toString('latin1', 0, take);
    const whole = consumed === end ? text.length : text.length - (text.length % 4);
    carry = text.slice(whole);
    const group = text.slice(0, whole);
    // A character the decoder skips leaves the group short: then the payload is not base64.
    const expected = Math.floor((group.length * 3) / 4);
    if (out.write(group, written, 'base64') !== expected) return undefined;
    written += expected;
  }
  return written === out.length ? out : undefined;
}

/** How many `=` end the payload (at most two), looking across the last pieces. */
function trailingPadding(segments: readonly Buffer[]): number {
  let padding = 0;
  for (let s = segments.length - 1; s >= 0 && padding < 2; s--) {
    const segment = segments[s];
    for (let i = segment.length - 1; i >= 0 && padding < 2; i--) {
      if (segment[i] !== 0x3d) return padding;
      padding++;
    }
  }
  return padding;
}

/** Decoded size of a base64 string (or of a marked payload) without decoding it. */
export function base64DecodedSize(value: string): number {
  const length = isBlobMarker(value) ? blobLength(value) : value.length;
  return Math.floor((length * 3) / 4);
}
