import { randomBytes } from 'node:crypto';

/**
 * Huge string literals kept as bytes, out of the JavaScript heap's strings.
 *
 * A 50 MB image arrives as one JSON line; parsing it whole makes the chunks, the joined line, a
 * string of the line and a string of the payload all live at once. Instead, the upstream's stdout
 * goes through a LiteralCutter that keeps every long literal without escapes as the chunks it
 * arrived in (no copy) and leaves a short marker string in its place; in JSON carried by a long
 * literal with escapes, it keeps the inner long strings and inlays their markers in the text
 * (inlay.ts). The pipeline decodes a marked payload straight from those chunks; anything that leaves
 * the proxy unextracted has its markers restored to the very same string first.
 */

// Random per process, so no string an upstream sends can pass for a marker.
const MARKER_PREFIX = `\u0000mcp-offload-blob-${randomBytes(6).toString('hex')}:`;
/**
 * A marker as it stands inside JSON text carried by a string (see inlay.ts): a text block's
 * `{"content":"\u0000mcp-offload-blob-…:7"}` holds the marker once the text is parsed as JSON.
 */
const INLAID_PREFIX = JSON.stringify(MARKER_PREFIX).slice(1, -1);
const INLAID = new RegExp(`${INLAID_PREFIX.replace(/\\/g, '\\\\')}(\\d+)`, 'g');
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

/** What the cutter writes into an escaped literal in place of an inner string's content. */
export function inlaidMarkerBytes(marker: string): Buffer {
  return Buffer.from(JSON.stringify(INLAID_PREFIX).slice(1, -1) + marker.slice(MARKER_PREFIX.length));
}

/** Whether a string holds inlaid markers (only looked for while some blob is held). */
export function hasInlaidMarker(value: string): boolean {
  return blobs.size > 0 && value.includes(INLAID_PREFIX);
}

/** Whether a marked literal holds `needle` (ASCII), looking across the pieces' seams too. */
export function blobIncludes(marker: string, needle: string): boolean {
  const segments = blobSegments(marker) ?? [];
  const bytes = Buffer.from(needle, 'latin1');
  for (const [i, segment] of segments.entries()) {
    if (segment.includes(bytes)) return true;
    const next = segments[i + 1];
    if (
      next &&
      Buffer.concat([segment.subarray(-bytes.length + 1), next.subarray(0, bytes.length - 1)]).includes(bytes)
    )
      return true;
  }
  return false;
}

/** The first `bytes` bytes of a marked literal as a string: enough to sniff what it holds. */
export function blobHead(marker: string, bytes: number): string {
  const segments = blobSegments(marker) ?? [];
  const head: Buffer[] = [];
  let taken = 0;
  for (const segment of segments) {
    if (taken >= bytes) break;
    head.push(segment.subarray(0, bytes - taken));
    taken += head[head.length - 1].length;
  }
  return Buffer.concat(head, taken).toString('latin1');
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
 * A copy of `value` with every marker replaced by its string, and every inlaid marker inside a string
 * by its content (the blob is then let go, unless `release` is false). The same object when there is
 * nothing to restore, which is every message when no blob is outstanding. With `keepInlaid`, inlaid
 * markers stay.
 */
export function restoreBlobs<T>(value: T, { keepInlaid = false, release = true } = {}): T {
  if (blobs.size === 0) return value;
  return restore(value, keepInlaid, release) as T;
}

/**
 * A string with its inlaid markers replaced by their content; the blobs are let go unless `release`
 * is false (a copy for a moment, e.g. to store a document that still holds them).
 */
export function restoreInlaid(value: string, { release = true } = {}): string {
  if (!hasInlaidMarker(value)) return value;
  return value.replace(INLAID, (inlaid, id: string) => {
    const text = blobString(MARKER_PREFIX + id);
    if (text === undefined) return inlaid;
    if (release) blobs.delete(id);
    return text;
  });
}

/** The markers inlaid in a string. */
export function inlaidMarkers(value: string): string[] {
  return hasInlaidMarker(value) ? [...value.matchAll(INLAID)].map((match) => MARKER_PREFIX + match[1]) : [];
}

/** Every marker a value holds, whole or inlaid in its strings. */
export function markersIn(value: unknown, found = new Set<string>()): Set<string> {
  if (blobs.size === 0) return found;
  if (typeof value === 'string') {
    if (isBlobMarker(value)) found.add(value);
    else for (const marker of inlaidMarkers(value)) found.add(marker);
  } else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) markersIn(item, found);
  }
  return found;
}

/** The length of the string a value stands for: a marker's is its literal's. */
export function stringLength(value: string): number {
  return isBlobMarker(value) ? blobLength(value) : value.length;
}

function restore(value: unknown, keepInlaid: boolean, release: boolean): unknown {
  if (typeof value === 'string') {
    if (!isBlobMarker(value)) return keepInlaid ? value : restoreInlaid(value, { release });
    const text = blobString(value);
    if (text === undefined) return value;
    if (release) releaseBlob(value);
    return text;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const restored = restore(item, keepInlaid, release);
      if (restored !== item) (copy ??= [...value])[i] = restored;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const restored = restore(item, keepInlaid, release);
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
