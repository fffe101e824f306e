import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { TextDecoder } from 'node:util';
import { ExactNumberStream, exactNumbersMinted } from '../codec/exact-numbers.js';

type Callback = (error?: Error | null) => void;

/**
 * For a response the SDK writes (its Streamable HTTP transports serialize messages themselves): the numbers the
 * proxy carries as markers (codec/exact-numbers.ts) are written back as the numbers they stand for. Until a marker
 * has been made in this process the response is written as it is; after that its body goes through an
 * ExactNumberStream and loses a Content-Length, which the restored body would no longer match.
 */
export function writeNumbersExactly(res: ServerResponse): void {
  const writeHead = res.writeHead;
  const write = res.write;
  const end = res.end;
  let stream: ExactNumberStream | undefined;
  let decoder: TextDecoder | undefined;

  const restored = (chunk: unknown, encoding?: BufferEncoding): string | undefined => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
    if (!stream && !exactNumbersMinted()) return undefined;
    stream ??= new ExactNumberStream();
    decoder ??= new TextDecoder();
    const text =
      typeof chunk === 'string'
        ? Buffer.from(chunk, encoding).toString('utf8')
        : decoder.decode(chunk as Uint8Array, { stream: true });
    return stream.push(text);
  };

  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (exactNumbersMinted()) {
      this.removeHeader('content-length');
      for (const headers of rest) if (headers && typeof headers === 'object') dropContentLength(headers);
    }
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];

  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    const encoding = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined;
    const text = restored(chunk, encoding);
    if (text === undefined) return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    const callback = rest.find((r): r is Callback => typeof r === 'function');
    return callback ? write.call(this, text, 'utf8', callback) : write.call(this, text, 'utf8');
  } as ServerResponse['write'];

  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    const text = restored(chunk, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined);
    if (!stream) return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    const callback = [chunk, ...rest].find((r): r is () => void => typeof r === 'function');
    const last = (text ?? '') + stream.push(decoder?.decode() ?? '') + stream.end();
    return callback ? end.call(this, last, 'utf8', callback) : end.call(this, last, 'utf8');
  } as ServerResponse['end'];
}

function dropContentLength(headers: object): void {
  if (Array.isArray(headers)) {
    for (let i = headers.length - 2; i >= 0; i -= 2) {
      if (String(headers[i]).toLowerCase() === 'content-length') headers.splice(i, 2);
    }
    return;
  }
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === 'content-length') delete (headers as OutgoingHttpHeaders)[name];
  }
}
