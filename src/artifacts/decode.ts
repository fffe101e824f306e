import { createHash } from 'node:crypto';
import { ArtifactStoreError, type ArtifactInput, type PieceSource } from './types.js';
import { humanSize } from './sizes.js';

/**
 * Base64 characters taken per step: a multiple of 4 so unbroken input needs no carry, and small enough
 * that one step's copies stay a few MiB however large the payload is.
 */
export const BASE64_CHUNK_CHARS = 3 * 1024 * 1024;

// The whitespace MIME-style and pretty-printed base64 carries between lines.
const WHITESPACE = /[\t\n\v\f\r ]+/g;
const CHUNK_SHAPE = /^([A-Za-z0-9+/_-]*)(=*)$/;
const NOT_BASE64 = /[^A-Za-z0-9+/_\-=\t\n\v\f\r ]/;

export interface DecodedPayload {
  bytes: Buffer;
  /** Hex sha256 of `bytes`. */
  sha256: string;
}

/** The decoded size of a base64 string without decoding it; exact for valid input. */
export function decodedBase64Size(b64: string): number {
  let significant = 0;
  for (let i = 0; i < b64.length; i++) {
    const c = b64.charCodeAt(i);
    // Space, \t \n \v \f \r and '=' carry no data.
    if (c !== 0x20 && c !== 0x3d && (c < 0x09 || c > 0x0d)) significant++;
  }
  return Math.floor((significant * 3) / 4);
}

/**
 * Decodes standard or URL-safe base64, with or without padding, ignoring whitespace, one chunk at a
 * time. Anything else is an error rather than the silently truncated or garbled output
 * `Buffer.from(s, 'base64')` would give. Errors surface at the chunk where the problem is, so a
 * consumer that streams chunks to disk must discard what it wrote.
 */
export function* base64Chunks(b64: string): Generator<Buffer> {
  let carry = '';
  let significant = 0;
  let padding = 0;
  for (let offset = 0; offset < b64.length; offset += BASE64_CHUNK_CHARS) {
    const raw = b64.slice(offset, offset + BASE64_CHUNK_CHARS);
    const shape = CHUNK_SHAPE.exec(raw.replace(WHITESPACE, ''));
    if (!shape) throw invalidAt(raw, offset);
    const [, body = '', pad = ''] = shape;
    if (padding > 0 && body.length > 0) throw invalid(`data continues after "=" padding (near offset ${offset})`);
    padding += pad.length;
    if (padding > 2) throw invalid('more than two "=" padding characters');
    significant += body.length;
    const text = carry + body;
    const usable = text.length - (text.length % 4);
    carry = text.slice(usable);
    if (usable > 0) yield Buffer.from(text.slice(0, usable), 'base64');
  }
  const rest = significant % 4;
  // One leftover character holds 6 bits, less than a byte; padding must complete the last quantum exactly.
  if (rest === 1 || (padding > 0 && rest + padding !== 4)) {
    throw invalid(`${significant + padding} characters (after removing whitespace) is not a valid length`);
  }
  if (carry) yield Buffer.from(carry, 'base64');
}

function invalidAt(raw: string, offset: number): ArtifactStoreError {
  const bad = NOT_BASE64.exec(raw);
  if (bad) {
    return invalid(`character ${JSON.stringify(bad[0])} at offset ${offset + bad.index} is not in the base64 alphabet`);
  }
  const afterPad = /=[\t\n\v\f\r ]*[^=\t\n\v\f\r ]/.exec(raw);
  return invalid(`data continues after "=" padding at offset ${offset + (afterPad?.index ?? 0)}`);
}

function invalid(detail: string): ArtifactStoreError {
  return new ArtifactStoreError('invalid-data', `invalid base64: ${detail}`);
}

export function tooLarge(size: number, limit: number): ArtifactStoreError {
  return new ArtifactStoreError(
    'too-large',
    `payload of ${size} bytes (${humanSize(size)}) exceeds the artifact limit of ${limit} bytes (${humanSize(limit)})`,
  );
}

/**
 * Bytes and sha256 of a payload, refusing it before any work proportional to its size when it is over
 * `maxBytes` (0 = no limit). Hashing rides along the base64 chunk loop so the data is traversed once.
 * (Pieces, the payloads too large to hold decoded, are written as they come: see piece-file.ts.)
 */
export function decodePayload(data: Exclude<ArtifactInput['data'], { pieces: PieceSource }>, maxBytes: number): DecodedPayload {
  const limited = maxBytes > 0;
  if ('bytes' in data) {
    const view = data.bytes as Uint8Array;
    if (!(view instanceof Uint8Array)) throw new ArtifactStoreError('invalid-data', 'payload bytes are not a Buffer');
    if (limited && view.byteLength > maxBytes) throw tooLarge(view.byteLength, maxBytes);
    const bytes = Buffer.isBuffer(view) ? view : Buffer.from(view.buffer, view.byteOffset, view.byteLength);
    return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  if ('text' in data) {
    if (typeof data.text !== 'string') throw new ArtifactStoreError('invalid-data', 'payload text is not a string');
    const size = Buffer.byteLength(data.text, 'utf8');
    if (limited && size > maxBytes) throw tooLarge(size, maxBytes);
    const bytes = Buffer.from(data.text, 'utf8');
    return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  const b64: unknown = (data as { base64?: unknown }).base64;
  if (typeof b64 !== 'string') throw new ArtifactStoreError('invalid-data', 'invalid base64: the payload is not a string');
  // floor(len*3/4) bounds the size from above; only when it is over the limit is an exact count needed,
  // so line-wrapped base64 just under the limit is not refused for its newlines.
  if (limited && Math.floor((b64.length * 3) / 4) > maxBytes) {
    const size = decodedBase64Size(b64);
    if (size > maxBytes) throw tooLarge(size, maxBytes);
  }
  const hash = createHash('sha256');
  const parts: Buffer[] = [];
  let size = 0;
  for (const chunk of base64Chunks(b64)) {
    hash.update(chunk);
    parts.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(parts, size), sha256: hash.digest('hex') };
}
