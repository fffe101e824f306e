import { ArtifactStoreError, type PieceSource } from './types.js';
import { humanSize } from './sizes.js';

export function tooLarge(size: number, limit: number): ArtifactStoreError {
  return new ArtifactStoreError(
    'too-large',
    `payload of ${size} bytes (${humanSize(size)}) exceeds the artifact limit of ${limit} bytes (${humanSize(limit)})`,
  );
}

/** Bytes written at a time: one write to the thread pool per piece, hashed here while the pool writes it. */
const PIECE_BYTES = 1024 * 1024;

/**
 * A payload held as bytes, as a source of pieces (views, not copies): the store writes every payload the same way
 * (piece-file.ts). One write of the whole buffer would let the hash run beside it too, but a write of many megabytes
 * in one call was seen to stall for tens of milliseconds now and then where pieces of 1 MiB did not.
 */
export function bytePieces(bytes: Buffer): PieceSource {
  const view = bytes as Uint8Array;
  if (!(view instanceof Uint8Array)) throw new ArtifactStoreError('invalid-data', 'payload bytes are not a Buffer');
  return {
    size: view.byteLength,
    *pieces() {
      for (let at = 0; at < view.byteLength; at += PIECE_BYTES) yield view.subarray(at, at + PIECE_BYTES);
    },
  };
}
