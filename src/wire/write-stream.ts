import type { Writable } from 'node:stream';

/**
 * Writes the pieces of a message (and `end`, a newline for line-delimited wires), and when the stream's buffer is
 * full waits for it to drain, so huge messages do not pile up in memory. Write errors surface through the stream's
 * 'error' event, which the owner handles.
 */
export function writeChunks(stream: Writable, chunks: ReadonlyArray<string | Buffer>, end = ''): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.reject(new Error('stream is closed'));
  let flowing = true;
  if (chunks.length === 1 && typeof chunks[0] === 'string') {
    flowing = stream.write(chunks[0] + end);
  } else {
    for (const chunk of chunks) flowing = stream.write(chunk) && flowing;
    if (end) flowing = stream.write(end) && flowing;
  }
  if (flowing) return Promise.resolve();
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
