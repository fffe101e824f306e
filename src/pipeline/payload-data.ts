import { ArtifactStoreError, type PieceSource } from '../artifacts/types.js';
import {
  base64Pieces,
  decodeBase64Strict,
  decodedSize,
  decodedSizeOfPieces,
  decodePieces,
  decodeStringPieces,
  NotBase64Error,
  unbrokenSize,
} from '../codec/base64.js';
import type { BlobView } from '../wire/blob-view.js';

/** Decoded bytes produced at a time for a payload stored piece by piece. */
const WINDOW_BYTES = 1024 * 1024;

/**
 * The bytes of a base64 value for a payload: decoded now, or, for a payload kept as bytes (a blob, in
 * memory or spooled to a file), as pieces decoded while it is stored, so neither the whole payload nor
 * its decoded bytes are ever in memory. Undefined
 * when it is plainly not base64; pieces that prove it is not fail with an `invalid-data` error.
 */
export function base64Data(
  value: string | BlobView,
): { bytes: Buffer; base64: string } | { pieces: PieceSource } | undefined {
  if (typeof value === 'string') {
    const bytes = decodeBase64Strict(value);
    return bytes && { bytes, base64: value };
  }
  const shape = base64Pieces(value);
  if (!shape) return undefined;
  return { pieces: { size: shape.size, pieces: () => storeErrors(decodePieces(shape, WINDOW_BYTES)) } };
}

/**
 * For a payload that is stored as it is, nothing recorded of its text (an image block, an embedded resource's blob):
 * a base64 string whose length and padding fit one line, as pieces decoded while the store writes and hashes the
 * pieces before them, rather than whole first; undefined for any other string (`base64Data` decodes it whole). A line
 * break, found only part-way, fails the pieces as invalid data: the caller then tries `base64Data`, which decodes
 * wrapped base64 whole.
 */
export function base64Stream(value: string): { pieces: PieceSource } | undefined {
  const size = unbrokenSize(value);
  if (size === undefined) return undefined;
  return { pieces: { size, pieces: () => storeErrors(decodeStringPieces(value, size)) } };
}

/** The size of a payload's data: bytes, or pieces yet to be decoded. */
export function dataSize(data: { bytes: Buffer } | { pieces: PieceSource }): number {
  return 'bytes' in data ? data.bytes.length : data.pieces.size;
}

/** Decoded size of base64 (a string, or a blob of it) without decoding it. */
export function base64DecodedSize(value: string | BlobView): number {
  return typeof value === 'string' ? decodedSize(value) : decodedSizeOfPieces(value);
}

/** Pieces that turn out not to be base64 are invalid data to the store, which then keeps nothing. */
function* storeErrors(pieces: Generator<Buffer>): Generator<Buffer> {
  try {
    yield* pieces;
  } catch (error) {
    if (error instanceof NotBase64Error) throw new ArtifactStoreError('invalid-data', error.message);
    throw error;
  }
}
