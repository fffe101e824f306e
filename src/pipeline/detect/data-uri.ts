/**
 * Finding `data:` URIs inside arbitrary text (markdown images, HTML attributes, bare). One forward scan with
 * indexOf and bounded header parsing, so the cost is linear in the text whatever it contains.
 */
import { defineOwn } from './define-own.js';

export interface DataUriMatch {
  /** Index of the `d` of `data:`. */
  start: number;
  /** Index just past the payload. */
  end: number;
  /** Lower-cased; `text/plain` when the URI names none (RFC 2397). */
  mimeType: string;
  base64: boolean;
  /** The base64 text as written (base64: true), or the percent-decoded text (base64: false). */
  payload: string;
  /** Parameters other than `base64`, e.g. `{ charset: 'utf-8', name: 'report.pdf' }`. */
  parameters: Record<string, string>;
}

// A header (`image/png;name=x;base64`) longer than this is not one; the bound keeps the scan linear.
const MAX_HEADER = 256;

function isSchemeChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || // 0-9
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    code === 0x2b ||
    code === 0x2d ||
    code === 0x2e // + - .
  );
}

// RFC 2045 token characters, for the type, subtype and parameters of the media type.
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function isBase64PayloadChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x2b ||
    code === 0x2f ||
    code === 0x3d ||
    code === 0x2d ||
    code === 0x5f // + / = - _
  );
}

// Where a percent-encoded payload stops: whitespace and the delimiters around a URI in markdown and HTML.
function endsPercentPayload(code: number): boolean {
  return (
    code <= 0x20 ||
    code === 0x22 ||
    code === 0x27 ||
    code === 0x29 ||
    code === 0x3c ||
    code === 0x3e ||
    code === 0x60 ||
    code === 0x7f // " ' ) < > `
  );
}

interface Header {
  mimeType: string;
  base64: boolean;
  parameters: Record<string, string>;
}

/** Parses `image/png;charset=x;base64` (the text between `data:` and `,`); undefined if malformed. */
function parseHeader(header: string): Header | undefined {
  const parts = header.split(';');
  const type = parts[0].trim();
  let mimeType = 'text/plain';
  if (type !== '') {
    const slash = type.indexOf('/');
    if (slash <= 0 || !TOKEN.test(type.slice(0, slash)) || !TOKEN.test(type.slice(slash + 1))) return undefined;
    mimeType = type.toLowerCase();
  }
  let base64 = false;
  const parameters: Record<string, string> = {};
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i].trim();
    if (part.toLowerCase() === 'base64' && i === parts.length - 1) {
      base64 = true;
      continue;
    }
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const name = part.slice(0, eq).toLowerCase();
    if (!TOKEN.test(name)) return undefined;
    defineOwn(parameters, name, part.slice(eq + 1));
  }
  return { mimeType, base64, parameters };
}

/**
 * Every `data:` URI in `text` whose payload is at least `minLength` characters, in order and non-overlapping.
 * Base64 payloads end where the base64 alphabet does; percent-encoded ones at whitespace, quotes, `)`, `<`, `>`
 * and are returned decoded (ones that do not decode are skipped). `data:` must start a word, so `metadata:`
 * is not a match. The scheme is matched in lower case only, as every producer writes it.
 */
export function findDataUris(text: string, minLength: number): DataUriMatch[] {
  const matches: DataUriMatch[] = [];
  let from = 0;
  let comma = -1; // the first comma at or after `from`, reused while it stays ahead so the scan stays linear
  for (;;) {
    const start = text.indexOf('data:', from);
    if (start === -1) return matches;
    from = start + 5;
    if (start > 0 && isSchemeChar(text.charCodeAt(start - 1))) continue;

    if (comma < from) comma = text.indexOf(',', from);
    if (comma === -1) return matches; // no later data: URI can have a comma either
    if (comma - from > MAX_HEADER) continue;
    const rawHeader = text.slice(from, comma);
    if (/[\s"'<>()]/.test(rawHeader)) continue;
    const header = parseHeader(rawHeader);
    if (!header) continue;

    let end = comma + 1;
    if (header.base64) {
      while (end < text.length && isBase64PayloadChar(text.charCodeAt(end))) end++;
    } else {
      while (end < text.length && !endsPercentPayload(text.charCodeAt(end))) end++;
    }
    from = end;
    const raw = text.slice(comma + 1, end);
    if (raw.length === 0 || raw.length < minLength) continue;

    let payload = raw;
    if (!header.base64) {
      try {
        payload = decodeURIComponent(raw);
      } catch {
        continue; // malformed percent-encoding: not a URI we can stand behind
      }
    }
    matches.push({
      start,
      end,
      mimeType: header.mimeType,
      base64: header.base64,
      payload,
      parameters: header.parameters,
    });
  }
}

export interface RangeReplacement {
  start: number;
  end: number;
  replacement: string;
}

/**
 * `text` with each [start, end) range replaced, in one pass. Ranges may come in any order; overlapping or
 * out-of-bounds ranges are a caller bug and throw a RangeError.
 */
export function replaceRanges(text: string, replacements: readonly RangeReplacement[]): string {
  const sorted = [...replacements].sort((a, b) => a.start - b.start || a.end - b.end);
  const pieces: string[] = [];
  let at = 0;
  for (const { start, end, replacement } of sorted) {
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < at || end < start || end > text.length) {
      throw new RangeError(`replaceRanges: range [${start}, ${end}) overlaps another or lies outside the text`);
    }
    pieces.push(text.slice(at, start), replacement);
    at = end;
  }
  pieces.push(text.slice(at));
  return pieces.join('');
}
