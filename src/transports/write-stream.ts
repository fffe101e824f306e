import type { Writable } from 'node:stream';

/**
 * Writes, and when the stream's buffer is full waits for it to drain, so huge messages do not pile
 * up in memory. Write errors surface through the stream's 'error' event, which the owner handles.
 */
export function writeWithBackpressure(stream: Writable, data: string): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.reject(new Error('stream is closed'));
  if (stream.write(data)) return Promise.resolve();
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
