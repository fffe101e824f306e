/**
 * Huge string literals kept as bytes, out of the JavaScript heap's strings.
 *
 * A 50 MB image arrives as one JSON line; parsing it whole makes the chunks, the joined line, a
 * string of the line and a string of the payload all live at once. Instead, the upstream's stdout
 * goes through a LiteralCutter that keeps every long literal without escapes as the chunks it
 * arrived in (no copy) and leaves a short marker string in its place. The pipeline decodes a marked
 * payload straight from those chunks; anything that leaves the proxy unextracted has its markers
 * restored to the very same string first.
 */

const MARKER_PREFIX = '\u0000mcp-offload-blob:';
/** Only literals this long are kept as blobs. */
export const BLOB_LITERAL_BYTES = 256 * 1024;
/** A blob nobody restored or consumed (a late response the SDK dropped) is let go after this. */
const ORPHAN_MS = 10 * 60_000;

interface Blob {
  /** The literal's content (a JSON string without escapes is its own UTF-8 text), as it arrived. */
  segments: Buffer[];
  length: number;
  created: number;
}

const blobs = new Map<string, Blob>();
let nextId = 0;
let sweeper: NodeJS.Timeout | undefined;

export function isBlobMarker(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(MARKER_PREFIX);
}

/** The bytes of a marked literal, in the pieces they arrived in. */
export function blobSegments(marker: string): readonly Buffer[] | undefined {
  return blobs.get(marker.slice(MARKER_PREFIX.length))?.segments;
}

export function blobLength(marker: string): number {
  return blobs.get(marker.slice(MARKER_PREFIX.length))?.length ?? 0;
}

/** The string the marker stands for, exactly as the upstream sent it. */
export function blobString(marker: string): string | undefined {
  const blob = blobs.get(marker.slice(MARKER_PREFIX.length));
  return blob && Buffer.concat(blob.segments, blob.length).toString('utf8');
}

/** Keeps a literal's content and answers the marker that stands for it. */
export function keepBlob(segments: Buffer[], length: number): string {
  const id = String(nextId++);
  blobs.set(id, { segments, length, created: Date.now() });
  sweepLater();
  return MARKER_PREFIX + id;
}

export function releaseBlob(marker: string): void {
  blobs.delete(marker.slice(MARKER_PREFIX.length));
}

export function outstandingBlobs(): number {
  return blobs.size;
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
