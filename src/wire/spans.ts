/**
 * Where the members of a JSON object sit in its text, found without parsing the values: a frame edits a few
 * members (a response's id, a request's `params._meta`) and keeps every other byte as it came (frame.ts).
 *
 * The texts are valid JSON (parsed already), so the scan only needs to find where each value ends: strings are
 * skipped with indexOf from quote to quote, nested objects and arrays by counting brackets outside strings.
 */

/** One member of an object: `"key": value`, with the offsets of its key's quote and its value's bounds. */
export interface Member {
  key: string;
  /** Offset of the key's opening quote. */
  start: number;
  valueStart: number;
  /** Offset just past the value. */
  valueEnd: number;
}

export interface ObjectSpan {
  /** Offset of `{`. */
  open: number;
  /** Offset of the matching `}`. */
  close: number;
  members: Member[];
}

const BRACKETS = /["{}[\]]/g;

/** The members of the object whose `{` is at `open`; undefined when the text there is not an object. */
export function objectAt(text: string, open: number): ObjectSpan | undefined {
  if (text.charCodeAt(open) !== 0x7b) return undefined;
  const members: Member[] = [];
  let i = skipSpace(text, open + 1);
  if (text.charCodeAt(i) === 0x7d) return { open, close: i, members };
  for (;;) {
    if (text.charCodeAt(i) !== 0x22) return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1) return undefined;
    const raw = text.slice(i + 1, keyEnd);
    const key = raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd + 1)) as string) : raw;
    let at = skipSpace(text, keyEnd + 1);
    if (text.charCodeAt(at) !== 0x3a) return undefined;
    const valueStart = skipSpace(text, at + 1);
    const valueEnd = valueEndAt(text, valueStart);
    if (valueEnd === -1) return undefined;
    members.push({ key, start: i, valueStart, valueEnd });
    at = skipSpace(text, valueEnd);
    const c = text.charCodeAt(at);
    if (c === 0x7d) return { open, close: at, members };
    if (c !== 0x2c) return undefined;
    i = skipSpace(text, at + 1);
  }
}

/** The offset of the first non-space character at or after `i`. */
export function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** The offset of the quote that closes the string opening at `open`, or -1. */
export function stringEnd(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close !== -1) {
    let slashes = 0;
    while (text.charCodeAt(close - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

/** The offset just past the value starting at `start`, or -1. */
export function valueEndAt(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === 0x22) {
    const end = stringEnd(text, start);
    return end === -1 ? -1 : end + 1;
  }
  if (c === 0x7b || c === 0x5b) return bracketEnd(text, start);
  let i = start;
  for (;;) {
    const d = text.charCodeAt(i);
    if (
      Number.isNaN(d) ||
      d === 0x2c ||
      d === 0x7d ||
      d === 0x5d ||
      d === 0x20 ||
      d === 0x0a ||
      d === 0x0d ||
      d === 0x09
    )
      return i === start ? -1 : i;
    i++;
  }
}

function bracketEnd(text: string, open: number): number {
  let depth = 0;
  BRACKETS.lastIndex = open;
  for (;;) {
    const found = BRACKETS.exec(text);
    if (!found) return -1;
    const at = found.index;
    const c = text.charCodeAt(at);
    if (c === 0x22) {
      const end = stringEnd(text, at);
      if (end === -1) return -1;
      BRACKETS.lastIndex = end + 1;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (--depth === 0) {
      return at + 1;
    }
  }
}
