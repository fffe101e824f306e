/**
 * JSON text read so that every number keeps its value.
 *
 * `JSON.parse` turns every number into a double: `9007199254740993` becomes `...992`, `12345678901234567890123`
 * `1.2345678901234568e+22`, `1e400` `null` and `-0` `0`. A database id in a tool's result or a client's arguments
 * would reach the other side changed. Such a number (one whose decimal value the nearest double does not keep) is
 * read as `JSON.rawJSON(itsText)` instead (Node 22): `JSON.stringify` writes it back exactly as it came, and to the
 * code in between it is an opaque, frozen object (`isExactNumber`). Numbers a double holds (nearly all) are read as
 * numbers, and a text that cannot hold another kind is parsed without a reviver at all.
 */

/** A number kept as its source text (what `JSON.rawJSON` makes). */
export interface ExactNumber {
  readonly rawJSON: string;
}

/** Only a text with one of these can hold a number a double changes: a cheap test before the slow parse. */
const SUSPECT = /\d(?:\.?\d){15}|\d[eE][+-]?\d{3}|-0(?:\.0+)?(?:[eE][+-]?\d+)?(?![\d.eE])/;

declare global {
  interface JSON {
    rawJSON(text: string): ExactNumber;
    isRawJSON(value: unknown): value is ExactNumber;
  }
}

interface ReviverContext {
  source?: string;
}

/** Parses a JSON text; a number whose value a double would change is an ExactNumber. Throws as JSON.parse does. */
export function parseJson(text: string): unknown {
  if (!SUSPECT.test(text)) return JSON.parse(text);
  return JSON.parse(text, exactReviver as (key: string, value: unknown) => unknown);
}

function exactReviver(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return doubleKeeps(context.source) ? value : JSON.rawJSON(context.source);
}

export function isExactNumber(value: unknown): value is ExactNumber {
  return JSON.isRawJSON(value);
}

/** A value for display or comparison: an ExactNumber as its number text, anything else as String() gives it. */
export function textOf(value: unknown): string {
  if (isExactNumber(value)) return value.rawJSON;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === null) return '[object]';
  return String(value);
}

/**
 * A value with every ExactNumber turned into the double nearest to it: what a JavaScript server reading the text
 * would have got (for the proxy's in-process servers, which are handed objects, not text). The same value when it
 * holds none.
 */
export function numbersAsDoubles<T>(value: T): T {
  if (isExactNumber(value)) return Number(value.rawJSON) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const read = numbersAsDoubles(item);
      if (read !== item) (copy ??= [...value])[i] = read;
    });
    return (copy ?? value) as T;
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

/** Whether the double nearest to a number token has the token's decimal value (so JSON.stringify writes it back). */
export function doubleKeeps(token: string): boolean {
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

/**
 * JSON.stringify that never answers undefined (a value JSON cannot write, a function or undefined, is written as
 * `String(value)`). Exact numbers are written as their text, as JSON.stringify does with raw JSON.
 */
export function stringifyJson(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space) as string | undefined;
  return json === undefined ? String(value) : json;
}
