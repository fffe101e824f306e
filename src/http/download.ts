import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { ArtifactStore } from '../artifacts/store.js';
import type { ArtifactRecord } from '../artifacts/types.js';
import { ARTIFACT_CSP, contentDisposition, downloadName, servedInline } from './content-headers.js';

/** An inclusive byte range, as HTTP writes it. */
export interface HttpRange {
  start: number;
  end: number;
}

/**
 * One `bytes=` range of a `size`-byte file: the range, 'unsatisfiable', or undefined when the header
 * should be ignored (absent, malformed, or several ranges, which we answer with the whole file as
 * RFC 9110 allows).
 */
export function parseRange(header: string | undefined, size: number): HttpRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

const etagOf = (record: ArtifactRecord): string => `"${record.sha256}"`;

/** True when an If-None-Match list names this entity (weak comparison, as for GET). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/**
 * Sends an artifact's bytes with the headers a browser needs to handle them safely; resolves to
 * the number of body bytes sent.
 */
export async function sendArtifact(
  req: IncomingMessage,
  res: ServerResponse,
  store: ArtifactStore,
  record: ArtifactRecord,
): Promise<number> {
  const etag = etagOf(record);
  const inline = servedInline(record.mimeType);
  const headers: Record<string, string | number> = {
    'content-type': record.mimeType,
    'content-disposition': contentDisposition(downloadName(record), inline),
    'x-content-type-options': 'nosniff',
    'content-security-policy': ARTIFACT_CSP,
    // Signed links are bearer credentials in a URL: never hand them on to another site.
    'referrer-policy': 'no-referrer',
    'cache-control': 'private, no-cache',
    'accept-ranges': 'bytes',
    etag,
  };
  if (matches(req.headers['if-none-match'], etag)) {
    res.writeHead(304, { etag, 'cache-control': String(headers['cache-control']) }).end();
    return 0;
  }
  const ifRange = req.headers['if-range'];
  const range = ifRange === undefined || ifRange === etag ? parseRange(req.headers.range, record.size) : undefined;
  if (range === 'unsatisfiable') {
    res.writeHead(416, { 'content-range': `bytes */${record.size}`, 'x-content-type-options': 'nosniff' }).end();
    return 0;
  }
  const { start, end } = range ?? { start: 0, end: record.size - 1 };
  const length = Math.max(0, end - start + 1);
  // Opened before the status line goes out, so a vanished file is still a clean 404.
  const stream = req.method === 'HEAD' ? undefined : await store.createReadStream(record.id, { start, end: end + 1 });
  if (range) headers['content-range'] = `bytes ${start}-${end}/${record.size}`;
  headers['content-length'] = length;
  res.writeHead(range ? 206 : 200, headers);
  if (!stream) {
    res.end();
    return 0;
  }
  await pipeline(stream, res);
  return length;
}
