/**
 * Huge string literals kept as bytes, out of the JavaScript heap's strings.
 *
 * A 50 MB image arrives as one JSON line; parsing it whole makes the bytes, a string of the line,
 * and a string of the payload all live at once. Instead, the stdio reader cuts every long literal
 * without escapes out of the line (a view of the bytes, no copy) and leaves a short marker string in
 * its place. The pipeline decodes a marked payload straight from the bytes; anything that leaves
 * the proxy unextracted has its markers restored to the very same string first.
 */

const MARKER_PREFIX = '\u0000mcp-offload-blob:';
/** Only lines this long are examined: small messages take the plain JSON.parse path. */
export const BLOB_LINE_BYTES = 1024 * 1024;
/** Only literals this long are cut out. */
export const BLOB_LITERAL_BYTES = 256 * 1024;
/** A blob nobody restored or consumed (a late response the SDK dropped) is let go after this. */
const ORPHAN_MS = 10 * 60_000;

interface Blob {
  bytes: Buffer;
  created: number;
}

const blobs = new Map<string, Blob>();
let nextId = 0;
let sweeper: NodeJS.Timeout | undefined;

export function isBlobMarker(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(MARKER_PREFIX);
}

/** The raw bytes of a marked literal (its JSON string content, which has no escapes). */
export function blobBytes(marker: string): Buffer | undefined {
  return blobs.get(marker.slice(MARKER_PREFIX.length))?.bytes;
}

/** The string the marker stands for, exactly as the upstream sent it. */
export function blobString(marker: string): string | undefined {
  return blobBytes(marker)?.toString('utf8');
}

export function releaseBlob(marker: string): void {
  blobs.delete(marker.slice(MARKER_PREFIX.length));
}

export function outstandingBlobs(): number {
  return blobs.size;
}

/**
 * The line as JSON text with each long escape-free string literal replaced by a marker literal.
 * Returns undefined when there is nothing to cut (the caller parses the line as usual).
 */
export function cutLongLiterals(line: Buffer): string | undefined {
  const parts: string[] = [];
  let copied = 0;
  let position = 0;
  let nextBackslash = line.indexOf(0x5c);
  for (;;) {
    const open = line.indexOf(0x22, position);
    if (open === -1) break;
    const close = closingQuote(line, open);
    if (close === -1) return undefined;
    while (nextBackslash !== -1 && nextBackslash < open) nextBackslash = line.indexOf(0x5c, nextBackslash + 1);
    const escaped = nextBackslash !== -1 && nextBackslash < close;
    if (!escaped && close - open - 1 >= BLOB_LITERAL_BYTES) {
      const id = String(nextId++);
      blobs.set(id, { bytes: line.subarray(open + 1, close), created: Date.now() });
      parts.push(line.toString('utf8', copied, open), JSON.stringify(MARKER_PREFIX + id));
      copied = close + 1;
    }
    position = close + 1;
  }
  if (parts.length === 0) return undefined;
  parts.push(line.toString('utf8', copied));
  sweepLater();
  return parts.join('');
}

/** The quote that ends the literal opened at `open`: the next one not escaped by a backslash. */
function closingQuote(line: Buffer, open: number): number {
  let search = open + 1;
  for (;;) {
    const quote = line.indexOf(0x22, search);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let i = quote - 1; i > open && line[i] === 0x5c; i--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    search = quote + 1;
  }
}

/**
 * A copy of `value` with every marker replaced by its string (the blob is then let go). The same
 * object when there is nothing to restore, which is every message when no blob is outstanding.
 */
export function restoreBlobs<T>(value: T): T {
  if (blobs.size === 0) return value;
  return restore(value) as T;
}

function restore(value: unknown): unknown {
  if (typeof value === 'string') {
    if (!isBlobMarker(value)) return value;
    const text = blobString(value);
    if (text === undefined) return value;
    releaseBlob(value);
    return text;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const restored = restore(item);
      if (restored !== item) (copy ??= [...value])[i] = restored;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const restored = restore(item);
    if (restored !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = restored;
  }
  return copy ?? value;
}

function sweepLater(): void {
  if (sweeper) return;
  sweeper = setInterval(() => {
    const cutoff = Date.now() - ORPHAN_MS;
    for (const [id, blob] of blobs) if (blob.created < cutoff) blobs.delete(id);
    if (blobs.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }, 60_000);
  sweeper.unref();
}
