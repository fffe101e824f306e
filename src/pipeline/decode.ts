import { blobBytes, isBlobMarker } from '../transports/blobs.js';
import { isFullyBase64 } from './detect/base64.js';

/** Base64 characters decoded at a time from a marked payload: a multiple of 4. */
const CHUNK_CHARS = 4 * 1024 * 1024;
const STANDARD = /^[A-Za-z0-9+/]*$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

/**
 * The bytes of a base64 string (standard or URL-safe alphabet, line breaks allowed), or undefined
 * if it is not valid base64: never garbage bytes.
 */
export function decodeBase64Strict(value: string): Buffer | undefined {
  if (isBlobMarker(value)) {
    const raw = blobBytes(value);
    return raw ? decodeBase64Bytes(raw) : undefined;
  }
  if (!isFullyBase64(value)) return undefined;
  return Buffer.from(value, 'base64');
}

/**
 * Decodes base64 held as bytes (a payload kept out of the heap's strings) a few megabytes at a time,
 * so no string of the whole payload is ever made. Only the unwrapped form, the one a JSON string
 * without escapes can hold, is accepted.
 */
function decodeBase64Bytes(raw: Buffer): Buffer | undefined {
  let end = raw.length;
  while (end > 0 && raw[end - 1] === 0x3d && raw.length - end < 2) end--;
  const padded = end < raw.length;
  if ((padded && raw.length % 4 !== 0) || end % 4 === 1 || end === 0) return undefined;
  const out = Buffer.allocUnsafe(Math.floor((end * 3) / 4));
  let standardOnly = false;
  let urlSafeOnly = false;
  let written = 0;
  for (let start = 0; start < end; start += CHUNK_CHARS) {
    const text = raw.toString('latin1', start, Math.min(start + CHUNK_CHARS, end));
    const standard = STANDARD.test(text);
    const urlSafe = URL_SAFE.test(text);
    standardOnly ||= standard && !urlSafe;
    urlSafeOnly ||= urlSafe && !standard;
    if ((!standard && !urlSafe) || (standardOnly && urlSafeOnly)) return undefined;
    written += out.write(text, written, 'base64');
  }
  return written === out.length ? out : out.subarray(0, written);
}

/** Decoded size of a base64 string (or of a marked payload) without decoding it. */
export function base64DecodedSize(value: string): number {
  const length = isBlobMarker(value) ? (blobBytes(value)?.length ?? 0) : value.length;
  return Math.floor((length * 3) / 4);
}
