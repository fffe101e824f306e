import type { Blobs } from '../../src/wire/blobs.js';
import type { BlobTable } from '../../src/wire/blob-table.js';
import { LineReader } from '../../src/wire/lines.js';

export interface ReadMessage<T> {
  message: T;
  /** The blobs the message arrived with, as the stdio wires hand them over with its frame. */
  blobs: Blobs;
}

/** Tables made by `readLines` since the last `blobsLeftOver`. */
const tables: BlobTable[] = [];

/**
 * Sends text through the line reader of the stdio wires (literal cutting on), in chunks of the given sizes (cycled),
 * and gives each message with its own blobs.
 */
export function readLines<T = unknown>(
  text: string | Buffer,
  {
    chunkSizes = [65_536],
    max = 512 * 1024 * 1024,
    blobBytes,
  }: { chunkSizes?: number[]; max?: number; blobBytes?: number } = {},
): { received: ReadMessage<T>[]; oversize: number[]; table: BlobTable } {
  const received: ReadMessage<T>[] = [];
  const oversize: number[] = [];
  const reader = new LineReader(
    {
      frame: (frame) => received.push({ message: frame.message as T, blobs: frame.blobs }),
      noise: () => undefined,
      oversize: (bytes) => void oversize.push(bytes),
    },
    max,
    true,
    blobBytes,
  );
  const table = reader.table!;
  tables.push(table);
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = chunkSizes[i % chunkSizes.length]!;
    reader.push(bytes.subarray(at, at + size));
    at += size;
  }
  return { received, oversize, table };
}

/** The blobs still held by tables made since the last call: none once every message was delivered. */
export function blobsLeftOver(): number {
  const left = tables.reduce((n, table) => n + table.outstanding, 0);
  tables.length = 0;
  return left;
}
