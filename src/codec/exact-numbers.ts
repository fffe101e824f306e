import { randomBytes } from 'node:crypto';

/**
 * JSON numbers that a JavaScript number cannot hold, carried through the proxy as their source text.
 *
 * `JSON.parse` turns every number into a double, so `9007199254740993` comes back as `...992`,
 * `12345678901234567890123` as `1.2345678901234568e+22`, `1e400` as `null` and `-0` as `0`: a database id or a
 * decimal that a client in another language would have read exactly is changed on its way through. Such a number
 * (one whose decimal value the double does not keep) is swapped, before parsing, for a marker string that holds its
 * text, and every place that writes JSON out of the proxy puts the text back in place of the marker. Numbers a double
 * holds (almost all of them) are parsed as before, and a text with no long digit run, no three-digit exponent and
 * no negative zero is not even scanned.
 *
 * The marker carries a random per-process nonce, so no upstream or client can forge one; a marker is only ever made
 * here. Between the reader and the writer a marked number is a string: the proxy's layers treat it as an opaque
 * value, and `exactNumberText` tells what it stands for where a value is shown.
 */

const MARKER_HEAD = `mcp-offload:number:${randomBytes(6).toString('hex')}:`;
const QUOTED_HEAD = `"${MARKER_HEAD}`;

/** Only a text with one of these can hold a number a double changes: a cheap test before the scan. */
const SUSPECT = /\d(?:\.?\d){15}|\d[eE][+-]?\d{3}|-0(?:\.0+)?(?:[eE][+-]?\d+)?(?![\d.eE])/;
/** A JSON number token, at a given position. */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** What a marker holds: a whole JSON number token. */
const WHOLE_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Set once a marker has been made: until then no text this process writes can hold one. */
let minted = false;

/** Whether any number has been marked in this process (writers skip their search until one has). */
export function exactNumbersMinted(): boolean {
  return minted;
}

/** The number text a marker stands for, or undefined when `value` is not a marker. */
export function exactNumberText(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith(MARKER_HEAD)) return undefined;
  const text = value.slice(MARKER_HEAD.length);
  return WHOLE_NUMBER.test(text) ? text : undefined;
}

/**
 * The JSON text with each number that a double would change replaced by a marker string; the same text when there
 * is none. Strings are skipped whole. An invalid text comes back as it is (JSON.parse then says why).
 */
export function markExactNumbers(text: string): string {
  if (!SUSPECT.test(text)) return text;
  let out: string[] | undefined;
  let copied = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const close = closingQuote(text, i);
      if (close === -1) break;
      i = close + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)?.[0];
      if (token === undefined) return text;
      if (!doubleKeeps(token)) {
        minted = true;
        out ??= [];
        out.push(text.slice(copied, i), QUOTED_HEAD, token, '"');
        copied = i + token.length;
      }
      i += token.length;
    } else i++;
  }
  if (!out) return text;
  out.push(text.slice(copied));
  return out.join('');
}

/** The JSON text with every marker put back as the number it stands for. */
export function restoreExactNumbers(json: string): string {
  if (!minted) return json;
  let at = json.indexOf(QUOTED_HEAD);
  if (at === -1) return json;
  let out = '';
  let copied = 0;
  while (at !== -1) {
    const start = at + QUOTED_HEAD.length;
    const close = json.indexOf('"', start);
    if (close === -1) break;
    const token = json.slice(start, close);
    if (WHOLE_NUMBER.test(token)) {
      out += json.slice(copied, at) + token;
      copied = close + 1;
    }
    at = json.indexOf(QUOTED_HEAD, close + 1);
  }
  return out + json.slice(copied);
}

/** JSON.parse that keeps every number's value: numbers a double would change come back as markers. */
export function parseExact(text: string): unknown {
  const marked = markExactNumbers(text);
  if (marked === text) return JSON.parse(text);
  try {
    return JSON.parse(marked);
  } catch {
    return JSON.parse(text); // its own error, about the text as it came
  }
}

/**
 * JSON.stringify with every marker written as the number it stands for; a value JSON cannot write (undefined, a
 * function) as `String(value)`.
 */
export function stringifyExact(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space) as string | undefined;
  return json === undefined ? String(value) : restoreExactNumbers(json);
}

/**
 * A value with every marker turned into the double it stands for: what a JavaScript server would have read from the
 * number (for the proxy's in-process servers, which get objects, not text). The same value when none was made.
 */
export function numbersAsDoubles<T>(value: T): T {
  if (!minted) return value;
  const marked = exactNumberText(value);
  if (marked !== undefined) return Number(marked) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => numbersAsDoubles(item));
    return (items.some((item, i) => item !== value[i]) ? items : value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const read = numbersAsDoubles(item);
    if (read === item) continue;
    copy ??= { ...(value as Record<string, unknown>) };
    Object.defineProperty(copy, key, { value: read, enumerable: true, writable: true, configurable: true });
  }
  return (copy ?? value) as T;
}

/**
 * Puts markers back in a stream of JSON text cut into chunks anywhere (an HTTP body, an SSE stream): a chunk's
 * tail that may be the start of a marker waits for the next chunk.
 */
export class ExactNumberStream {
  private carry = '';

  push(chunk: string): string {
    const text = this.carry + chunk;
    const cut = openMarkerAt(text);
    this.carry = cut === -1 ? '' : text.slice(cut);
    return restoreExactNumbers(cut === -1 ? text : text.slice(0, cut));
  }

  end(): string {
    const rest = this.carry;
    this.carry = '';
    return restoreExactNumbers(rest);
  }
}

/** Where a marker that the text ends inside of begins (its head, or a start of it), or -1. */
function openMarkerAt(text: string): number {
  const head = text.lastIndexOf(QUOTED_HEAD);
  const closed = head === -1 ? -1 : text.indexOf('"', head + QUOTED_HEAD.length);
  if (head !== -1 && closed === -1) return head;
  const quote = text.lastIndexOf('"');
  if (quote === -1 || text.length - quote >= QUOTED_HEAD.length || !QUOTED_HEAD.startsWith(text.slice(quote)))
    return -1;
  // The quote that closes a marker opens nothing after it.
  return quote === closed ? -1 : quote;
}

/** The index of the quote that closes the string opening at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close !== -1) {
    let slashes = 0;
    while (text.charCodeAt(close - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

/** Whether the double nearest to a number token has the token's decimal value (so JSON.stringify writes it back). */
function doubleKeeps(token: string): boolean {
  const value = Number(token);
  if (!Number.isFinite(value)) return false;
  if (value === 0) return token.charCodeAt(0) !== 0x2d && !/[1-9]/.test(mantissa(token));
  return sameDecimal(token, String(value));
}

function mantissa(token: string): string {
  const e = token.search(/[eE]/);
  return e === -1 ? token : token.slice(0, e);
}

/** Two number texts with the same decimal value: same sign, same significant digits, same magnitude. */
function sameDecimal(a: string, b: string): boolean {
  const x = decimal(a);
  const y = decimal(b);
  return x.negative === y.negative && x.digits === y.digits && x.exponent === y.exponent;
}

function decimal(token: string): { negative: boolean; digits: string; exponent: number } {
  const negative = token.charCodeAt(0) === 0x2d;
  const body = negative ? token.slice(1) : token;
  const e = body.search(/[eE]/);
  const written = e === -1 ? body : body.slice(0, e);
  const power = e === -1 ? 0 : Number(body.slice(e + 1));
  const dot = written.indexOf('.');
  const whole = dot === -1 ? written : written.slice(0, dot);
  const all = dot === -1 ? written : whole + written.slice(dot + 1);
  const lead = all.length - all.replace(/^0+/, '').length;
  const digits = all.slice(lead).replace(/0+$/, '');
  return { negative, digits, exponent: power + whole.length - lead };
}
