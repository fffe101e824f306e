import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`request body exceeds the limit of ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** Reads a request body into one buffer, refusing (and draining) anything over `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      if (!tooLarge) resolve(Buffer.concat(chunks, size));
    });
    req.once('error', reject);
  });
}
