import { createHash } from 'node:crypto';
import { ArtifactStoreError } from './types.js';
import { humanSize } from './sizes.js';

export interface HashedBytes {
  bytes: Buffer;
  /** Hex sha256 of `bytes`. */
  sha256: string;
}

export function tooLarge(size: number, limit: number): ArtifactStoreError {
  return new ArtifactStoreError(
    'too-large',
    `payload of ${size} bytes (${humanSize(size)}) exceeds the artifact limit of ${limit} bytes (${humanSize(limit)})`,
  );
}

/**
 * Bytes and sha256 of a payload, refused before they are hashed when over `maxBytes` (0 = no limit).
 * (Pieces, the payloads too large to hold decoded, are written as they come: see piece-file.ts.)
 */
export function hashBytes(data: { bytes: Buffer }, maxBytes: number): HashedBytes {
  const view = data.bytes as Uint8Array;
  if (!(view instanceof Uint8Array)) throw new ArtifactStoreError('invalid-data', 'payload bytes are not a Buffer');
  if (maxBytes > 0 && view.byteLength > maxBytes) throw tooLarge(view.byteLength, maxBytes);
  const bytes = Buffer.isBuffer(view) ? view : Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}
