/**
 * Parsing the JSON a text block carries without copying its long strings.
 *
 * A tool that returns `{"name": "report", "content": "JVBERi0..."}` as text hands over tens of
 * megabytes in one string value. `JSON.parse` would copy that value out of the text, and splicing a
 * reference back in would have to find it again. Instead, one linear scan finds every long string
 * value written without escapes; the JSON is parsed with a short placeholder in place of each, and
 * each placeholder is then replaced by a slice of the text (V8 shares the text's characters, no copy).
 * Where each such value stands in the text is remembered, so a rewrite splices it out in place.
 */
import { randomBytes } from 'node:crypto';
import { defineOwn } from './detect/define-own.js';
import { walkJson } from './detect/walk.js';

export type JsonPath = (string | number)[];

/** Where a string literal stands in the text: `start` at its opening quote, `end` just past its closing one. */
export interface LiteralRange {
  start: number;
  end: number;
}

/** String values this long (without the quotes) are left in the text rather than copied out. */
export const LONG_LITERAL_CHARS = 64 * 1024;

// Random per process, so no string an upstream sends can pass for one.
const PLACEHOLDER = `\u0000mcp-offload-literal-${randomBytes(8).toString('hex')}:`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER).slice(1, -1);
/** A raw control character makes a JSON string literal invalid. */
// eslint-disable-next-line no-control-regex -- a raw control character is what this looks for
const CONTROL = /[\u0000-\u001f]/;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

interface LongLiteral extends LiteralRange {
  /** Known to hold no raw control character (which would make the text not JSON). */
  checked: boolean;
}

interface LongLiterals {
  text: string;
  /** All of them, also those a repeated key dropped from the document: they are in the text all the same. */
  all: LongLiteral[];
  byPath: Map<string, LongLiteral>;
  /** Undefined until every literal has been checked; then whether the text is JSON after all. */
  valid?: boolean;
}

const literalsByDoc = new WeakMap<object, LongLiterals>();

/** The JSON object or array a text holds, or undefined for anything else. */
export function parseJsonText(text: string, longLiteralChars = LONG_LITERAL_CHARS): unknown {
  const doc = parseJsonTextUnconfirmed(text, longLiteralChars);
  return doc !== undefined && confirmJsonText(doc) ? doc : undefined;
}

/**
 * Like `parseJsonText`, but the long literals' characters are not yet checked: a raw control character
 * in one makes the text not JSON. Checking costs a pass over tens of megabytes that a payload's own
 * decoding makes unnecessary, so a caller that decodes one says so (`markLiteralChecked`) and calls
 * `confirmJsonText` before acting on the document.
 */
export function parseJsonTextUnconfirmed(text: string, longLiteralChars = LONG_LITERAL_CHARS): unknown {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    return text.length < longLiteralChars ? JSON.parse(text) : parseWithLongLiterals(text, longLiteralChars);
  } catch {
    return undefined;
  }
}

/**
 * Where the string at `path` of a document from `parseJsonText` stands in its text, when it is one
 * of the long values left in place; else undefined (the caller finds it some other way).
 */
export function literalRange(doc: unknown, path: JsonPath): LiteralRange | undefined {
  return literalsOf(doc)?.byPath.get(pathKey(path));
}

/** The long literal at `path` is known to be free of control characters (e.g. it decoded as base64). */
export function markLiteralChecked(doc: unknown, path: JsonPath): void {
  const literal = literalsOf(doc)?.byPath.get(pathKey(path));
  if (literal) literal.checked = true;
}

/** Whether the text a document was parsed from is JSON: its long literals hold no raw control character. */
export function confirmJsonText(doc: unknown): boolean {
  const literals = literalsOf(doc);
  if (!literals) return true;
  if (literals.valid === undefined) {
    literals.valid = true;
    for (const literal of literals.all) {
      if (!literal.checked && CONTROL.test(literals.text.slice(literal.start + 1, literal.end - 1)))
        literals.valid = false;
      literal.checked = true;
    }
  }
  return literals.valid;
}

function literalsOf(doc: unknown): LongLiterals | undefined {
  return typeof doc === 'object' && doc !== null ? literalsByDoc.get(doc) : undefined;
}

function parseWithLongLiterals(text: string, longLiteralChars: number): unknown {
  const ranges = findLongLiterals(text, longLiteralChars);
  // Not JSON, or nothing to leave in place: the parser decides.
  if (ranges === undefined || ranges.length === 0) return JSON.parse(text);

  const pieces: string[] = [];
  let last = 0;
  ranges.forEach(({ start, end }, i) => {
    pieces.push(text.slice(last, start), `"${PLACEHOLDER_JSON}${i}"`);
    last = end;
  });
  pieces.push(text.slice(last));
  const doc: unknown = JSON.parse(pieces.join(''));
  const all: LongLiteral[] = ranges.map((range) => ({ ...range, checked: false }));
  const byPath = new Map<string, LongLiteral>();
  fillPlaceholders(doc, (index, path) => {
    byPath.set(pathKey(path), all[index]);
    return text.slice(all[index].start + 1, all[index].end - 1);
  });
  // The text starts with { or [, so the document is an object.
  literalsByDoc.set(doc as object, { text, all, byPath });
  return doc;
}

/**
 * The string values of at least `minChars` characters without a backslash, in text order; undefined
 * when a literal does not close (the text is not JSON). Keys are left out: a key is followed by `:`.
 * JSON has no quote or backslash outside strings, so pairing quotes with escapes in mind finds
 * exactly the literals a JSON parser would.
 */
export function findLongLiterals(text: string, minChars: number): LiteralRange[] | undefined {
  const ranges: LiteralRange[] = [];
  // Found once and moved on only when passed: one scan of the text for each of the two characters.
  let nextBackslash = text.indexOf('\\');
  let position = 0;
  for (;;) {
    const start = text.indexOf('"', position);
    if (start === -1) return ranges;
    let from = start + 1;
    let escaped = false;
    let close: number;
    for (;;) {
      close = text.indexOf('"', from);
      if (close === -1) return undefined;
      if (nextBackslash !== -1 && nextBackslash < from) nextBackslash = text.indexOf('\\', from);
      if (nextBackslash === -1 || nextBackslash > close) break;
      escaped = true;
      from = nextBackslash + 2;
    }
    position = close + 1;
    if (!escaped && close - start - 1 >= minChars && !isKey(text, position)) ranges.push({ start, end: position });
  }
}

function isKey(text: string, after: number): boolean {
  let i = after;
  while (i < text.length && WHITESPACE.has(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === 0x3a; // ':'
}

/**
 * Replaces every placeholder string in a freshly parsed value (ours to change) by `valueFor`. Paths are built only
 * for the placeholders, from parent pointers: a copy of the path for every value cost depth² (#34 finding 3).
 */
function fillPlaceholders(root: unknown, valueFor: (index: number, path: JsonPath) => string): void {
  walkJson(root, (value, place) => {
    if (typeof value !== 'string' || !value.startsWith(PLACEHOLDER) || place.parent === undefined) return;
    const path = place.path();
    const filled = valueFor(Number(value.slice(PLACEHOLDER.length)), path);
    let node = root;
    for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
    if (Array.isArray(node)) node[place.key as number] = filled;
    else defineOwn(node as object, place.key as string, filled);
  });
}

function pathKey(path: JsonPath): string {
  return JSON.stringify(path);
}
