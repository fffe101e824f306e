import type { Writable } from 'node:stream';
import { BlobView } from './blob-view.js';

/** Bytes of a spooled blob read and written at a time. */
const STREAM_WINDOW = 64 * 1024;

/** Writes of spooled blobs still going on, per stream: whatever else is written there waits for them. */
const streaming = new WeakMap<Writable, Promise<void>>();

/**
 * Writes the pieces of a message (and `end`, a newline for line-delimited wires), and when the stream's buffer is
 * full waits for it to drain, so huge messages do not pile up in memory. A spooled blob (Frame.pieces) is read from
 * its file a window at a time, each written once the stream has room: meanwhile other messages for the stream wait
 * their turn, so that none lands in the middle of it. Write errors surface through the stream's 'error' event, which
 * the owner handles.
 */
export function writeChunks(
  stream: Writable,
  chunks: ReadonlyArray<string | Buffer | BlobView>,
  end = '',
): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.reject(new Error('stream is closed'));
  const before = streaming.get(stream);
  if (!before && inMemory(chunks)) return writeAll(stream, chunks, end);
  const written = (before ?? Promise.resolve()).then(() => writeReading(stream, chunks, end));
  const turn = written.then(
    () => undefined,
    () => undefined,
  );
  streaming.set(stream, turn);
  void turn.then(() => {
    if (streaming.get(stream) === turn) streaming.delete(stream);
  });
  return written;
}

function inMemory(chunks: ReadonlyArray<string | Buffer | BlobView>): chunks is ReadonlyArray<string | Buffer> {
  return !chunks.some((chunk) => chunk instanceof BlobView);
}

/** All at once: pieces in memory are handed to the stream as they are (no copy). */
function writeAll(stream: Writable, chunks: ReadonlyArray<string | Buffer>, end: string): Promise<void> {
  let flowing = true;
  if (chunks.length === 1 && typeof chunks[0] === 'string') {
    flowing = stream.write(chunks[0] + end);
  } else {
    for (const chunk of chunks) flowing = stream.write(chunk) && flowing;
    if (end) flowing = stream.write(end) && flowing;
  }
  return flowing ? Promise.resolve() : drained(stream);
}

async function writeReading(
  stream: Writable,
  chunks: ReadonlyArray<string | Buffer | BlobView>,
  end: string,
): Promise<void> {
  if (stream.destroyed || !stream.writable) throw new Error('stream is closed');
  for (const chunk of chunks) {
    if (!(chunk instanceof BlobView)) {
      if (!stream.write(chunk)) await drained(stream);
      continue;
    }
    // A copy of each window: the blob reads the next one into the same buffer, while the stream may still hold it.
    for (const window of chunk.read(STREAM_WINDOW)) if (!stream.write(Buffer.from(window))) await drained(stream);
  }
  if (end && !stream.write(end)) await drained(stream);
}

function drained(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      stream.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      stream.off('drain', onDrain);
      reject(new Error('stream closed before the message was written'));
    };
    stream.once('drain', onDrain);
    stream.once('close', onClose);
  });
}
