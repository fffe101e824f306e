import { createHash } from 'node:crypto';

const MAX_FILENAME_BYTES = 255;
const MAX_SEGMENT = 64;
// Longer "extensions" are more likely part of the name (`report.final-version-2024`) than a type.
const MAX_EXTENSION_BYTES = 32;

/**
 * Device names Windows reserves with or without an extension (`CON.txt` opens the console). The
 * superscript COM/LPT digits are reserved too.
 */
const RESERVED = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³])$/i;

// C0 and C1 controls, plus the bidi overrides that make `evil\u202Etxt.exe` display as `evilexe.txt`.
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * An upstream-supplied file name made safe to show and to use as a file name on any OS, or undefined
 * when nothing usable is left. Only the last path component survives, so a name can never point
 * elsewhere; the result is NFC so the same name typed on macOS and Linux compares equal.
 */
export function sanitizeFilename(name: string): string | undefined {
  if (typeof name !== 'string') return undefined;
  let s = name.normalize('NFC').replace(INVISIBLE, '');
  s = s.slice(Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\')) + 1);
  s = s.replace(/\s+/g, ' ').trim();
  s = s.replace(/[<>:"|?*]/g, '_');
  // Leading dots make hidden files (or `.`/`..`); Windows silently drops trailing dots and spaces.
  s = trimDotsAndSpaces(s);
  if (s === '') return undefined;
  const base = s.split('.')[0]!.trim();
  if (RESERVED.test(base)) s = `_${s}`;
  return capBytes(s, MAX_FILENAME_BYTES);
}

// A loop, not /[.\s]+$/: that regex is quadratic on long runs of dots and spaces not at the end.
function trimDotsAndSpaces(s: string): string {
  const junk = (c: string | undefined) => c === '.' || c === ' ';
  let start = 0;
  let end = s.length;
  while (start < end && junk(s[start])) start++;
  while (end > start && junk(s[end - 1])) end--;
  return s.slice(start, end);
}

/** Truncates the stem, not the extension, and never cuts a character in half. */
function capBytes(name: string, max: number): string {
  if (Buffer.byteLength(name) <= max) return name;
  const dot = name.lastIndexOf('.');
  let ext = dot > 0 ? name.slice(dot) : '';
  if (Buffer.byteLength(ext) > MAX_EXTENSION_BYTES) ext = '';
  const stem = ext ? name.slice(0, dot) : name;
  let budget = max - Buffer.byteLength(ext);
  let out = '';
  for (const ch of stem) {
    const size = Buffer.byteLength(ch);
    if (size > budget) break;
    out += ch;
    budget -= size;
  }
  return out.trimEnd() + ext;
}

/** A server or tool name as one path segment that is safe on every OS and cannot climb out of its folder. */
export function segment(name: string): string {
  let s = String(name).replace(/[^A-Za-z0-9._-]/g, '_');
  s = s.replace(/^\.+/, '').slice(0, MAX_SEGMENT).replace(/\.+$/, '');
  if (s === '') return '_';
  return RESERVED.test(s.split('.')[0]!) ? `_${s}`.slice(0, MAX_SEGMENT) : s;
}

/** `<server>/<tool>_<sha12>.<ext>`: readable, stable for the same bytes, and one level deep. */
export function artifactId(server: string, tool: string, sha256: string, ext: string, hashChars = 12): string {
  return `${segment(server)}/${segment(tool)}_${sha256.slice(0, hashChars)}.${ext}`;
}

/**
 * Whether an id has the shape artifactId gives (`<server>/<tool>_<12 or 64 hex digits>.<ext>`): one the proxy could
 * have handed out. Any other `artifact://` URI in a text is not one of ours, whatever it looks like.
 */
export function isMintedId(id: string): boolean {
  return isWellFormedId(id) && /_(?:[0-9a-f]{12}|[0-9a-f]{64})\.[a-z0-9]{1,16}$/.test(id);
}

/**
 * Whether an id has the shape the store creates: exactly two safe segments, no `.`/`..`, nothing
 * absolute. Ids from clients and from metadata files on disk pass through here before any path use.
 */
export function isWellFormedId(id: string): boolean {
  if (typeof id !== 'string' || id.length > 2 * MAX_SEGMENT + 96) return false;
  const parts = id.split('/');
  return parts.length === 2 && parts.every((p) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(p) && !/^\.+$/.test(p));
}

/** A short, stable fingerprint of a call's arguments: key order does not change it. */
export function hashArguments(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown, seen = new Set<object>()): string {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Arguments come from JSON and cannot be cyclic; a library caller's object could be, and hashing must not hang.
  if (seen.has(value)) return '"[Circular]"';
  seen.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((v) => canonicalJson(v, seen)).join(',')}]`;
  } else {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => {
        const v = (value as Record<string, unknown>)[k];
        return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
      })
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], seen)}`);
    out = `{${entries.join(',')}}`;
  }
  seen.delete(value);
  return out;
}
