import type { Blobs } from '../../src/transports/blob-set.js';
import { BlobTable } from '../../src/transports/blob-table.js';
import { JsonLineReader } from '../../src/transports/json-lines.js';
import { LiteralCutter } from '../../src/transports/literal-cutter.js';

export interface ReadMessage<T> {
  message: T;
  /** The blobs the message arrived with, as the stdio transport hands them over. */
  blobs: Blobs;
}

/** Tables made by `readLines` since the last `tablesLeftOver`. */
const tables: BlobTable[] = [];

/**
 * Sends text through a literal cutter and a line reader as the stdio transport does, in chunks of the
 * given sizes (cycled), and gives each message with its own blobs.
 */
export function readLines<T = unknown>(
  text: string | Buffer,
  {
    chunkSizes = [65_536],
    max = 512 * 1024 * 1024,
    blobBytes,
  }: { chunkSizes?: number[]; max?: number; blobBytes?: number } = {},
): { received: ReadMessage<T>[]; oversize: number[]; table: BlobTable } {
  const table = new BlobTable();
  tables.push(table);
  const received: ReadMessage<T>[] = [];
  const oversize: number[] = [];
  const reader = new JsonLineReader(
    {
      message: (message) => received.push({ message: message as T, blobs: table.takeMessageBlobs() }),
      noise: () => table.dropMessageBlobs(),
      oversize: (bytes) => {
        table.dropMessageBlobs();
        oversize.push(bytes);
      },
    },
    max,
  );
  const cutter = new LiteralCutter((bytes) => reader.push(bytes), max, table, blobBytes);
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = chunkSizes[i % chunkSizes.length];
    cutter.push(bytes.subarray(at, at + size));
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
