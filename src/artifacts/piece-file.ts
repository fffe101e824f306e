import { createHash } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { tempPath, unwritable } from './atomic-write.js';
import { resolveMimeTypeOfFile } from './mime.js';
import { humanSize } from './sizes.js';
import { ArtifactStoreError, type ArtifactInput, type PieceSource, type WrittenFile } from './types.js';

/**
 * The start of a file kept in memory for sniffing its type and reading facts (SVG needs 4 KiB, image-size the header).
 */
export const HEAD_BYTES = 1024 * 1024;

export interface WrittenPieces extends WrittenFile {
  sha256: string;
}

type Handle = Awaited<ReturnType<typeof open>>;

/** The error for a payload over the store's limit (`maxArtifactBytes`). */
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
 * (below). One write of the whole buffer would let the hash run beside it too, but a write of many megabytes
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

/**
 * A payload's pieces written to a temporary file in `tmpDir`, with what the store needs to put it in
 * place: its hash, its type (sniffed from the file) and its facts (from `input.watch`). Nothing is
 * left on disk when it fails.
 */
export async function writePayload(
  tmpDir: string,
  input: ArtifactInput,
  source: PieceSource,
  maxBytes: number,
): Promise<WrittenPieces & { mimeType: string; facts: Record<string, unknown> | undefined }> {
  if (maxBytes > 0 && source.size > maxBytes) {
    // Invalid data is reported as such even when it is also too large, as when decoding came first.
    drain(source);
    throw tooLarge(source.size, maxBytes);
  }
  const watch = input.watch;
  const written = await writePieces(tmpDir, source, watch && ((piece) => watch.add(piece)));
  try {
    if (maxBytes > 0 && written.size > maxBytes) throw tooLarge(written.size, maxBytes);
    const mimeType = await resolveMimeTypeOfFile(input.mimeType, written);
    const facts = watch ? await watch.finish(written) : input.facts;
    return { ...written, mimeType, facts };
  } catch (err) {
    await rm(written.path, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes the pieces to a new file in `tmpDir`, hashing them on the way, each handed to `observe`
 * too. A piece is written while it is hashed and the next one is produced, so at most two are held. On any error
 * the file is removed. A disk error is reported only once every piece was produced, so data that is
 * not what it claims is an `invalid-data` error, as it was when payloads were decoded before writing.
 */
export async function writePieces(
  tmpDir: string,
  source: PieceSource,
  observe?: (piece: Uint8Array) => void,
): Promise<WrittenPieces> {
  const path = tempPath(tmpDir);
  const hash = createHash('sha256');
  const head = Buffer.allocUnsafe(Math.min(HEAD_BYTES, source.size));
  let headFilled = 0;
  let size = 0;
  let diskError: unknown;
  let handle: Handle | undefined;
  let writing: Promise<void> = Promise.resolve();
  try {
    handle = await open(path, 'wx', 0o600).catch((err: unknown) => {
      diskError = err;
      return undefined;
    });
    for (const piece of source.pieces()) {
      const at = size;
      size += piece.length;
      await writing;
      // The write starts first: the thread pool writes the piece while it is hashed and looked at here.
      if (handle && diskError === undefined) {
        const file = handle;
        writing = writeAll(file, piece, at).catch((err: unknown) => {
          diskError = err;
        });
      }
      hash.update(piece);
      if (headFilled < head.length)
        headFilled += Buffer.from(piece.buffer, piece.byteOffset, piece.length).copy(head, headFilled);
      observe?.(piece);
    }
    await writing;
    await handle?.close().catch((err: unknown) => {
      diskError ??= err;
    });
    handle = undefined;
    if (diskError !== undefined) throw unwritable(path, diskError);
    return { path, size, sha256: hash.digest('hex'), head: head.subarray(0, headFilled) };
  } catch (err) {
    await writing;
    await handle?.close().catch(() => undefined);
    await rm(path, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Produces every piece and drops it: what checks the data without storing it. */
export function drain(source: PieceSource): void {
  for (const piece of source.pieces()) void piece;
}

async function writeAll(handle: Handle, piece: Uint8Array, position: number): Promise<void> {
  for (let offset = 0; offset < piece.length;) {
    const { bytesWritten } = await handle.write(piece, offset, piece.length - offset, position + offset);
    offset += bytesWritten;
  }
}
