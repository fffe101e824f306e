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

import { mapLeaves } from './map-leaves.js';

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
  try {
    return JSON.parse(text, exactReviver as (key: string, value: unknown) => unknown);
  } catch (error) {
    // With a reviver V8 walks the parsed value recursively, and some thousands of levels deep that overflows the
    // stack where JSON.parse alone does not: such a message is read with doubles rather than not at all. What no
    // interceptor edits is still written from its text, every number as it came.
    if (!isRangeError(error)) throw error;
    return JSON.parse(text);
  }
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
  return mapLeaves(value, (leaf) => (isExactNumber(leaf) ? Number(leaf.rawJSON) : leaf)) as T;
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
  const json = (space === undefined ? jsonText(value) : JSON.stringify(value, null, space)) as string | undefined;
  return json === undefined ? String(value) : json;
}

/**
 * JSON.stringify for a value of any depth. V8's JSON.stringify recurses and throws a RangeError some thousands of
 * levels down, where JSON.parse does not: a peer can send a message the proxy reads but could not write or measure.
 * Such a value is written by an explicit stack instead, member by member as JSON.stringify writes them (its leaves
 * and keys by JSON.stringify itself). undefined for what JSON.stringify answers undefined. Other errors (a cycle, a
 * BigInt) are thrown as JSON.stringify throws them. Typed as TypeScript types JSON.stringify, to take its place.
 */
export function jsonText(value: unknown): string {
  // A number (a message id set anew, most often) as JSON.stringify writes it, which is how String writes a finite one.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!isRangeError(error)) throw error;
    return deepJsonText(value) as string;
  }
}

/**
 * Whether `error` is the RangeError of a stack overflow (or another RangeError: JSON.parse and JSON.stringify throw
 * no other kind). By name: it is of the realm it happened in (jest runs a test in a context of its own).
 */
export function isRangeError(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'RangeError';
}

/** Text to write, on the stack between the values still to write; `leaving` the container it closes. */
class Written {
  constructor(
    readonly text: string,
    readonly leaving?: object,
  ) {}
}

const OMITTED = Symbol('omitted');

/** What JSON.stringify writes for `value` in place of itself: its toJSON's answer or the value; OMITTED for nothing. */
function serializable(value: unknown, key: string): unknown {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
    v = (v as { toJSON(key: string): unknown }).toJSON(key);
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return OMITTED;
  return v;
}

/** A leaf JSON.stringify writes alone: not an array or a plain object (a primitive, raw JSON, a boxed primitive). */
function isLeaf(value: unknown): boolean {
  return (
    value === null ||
    typeof value !== 'object' ||
    JSON.isRawJSON(value) ||
    value instanceof Number ||
    value instanceof String ||
    value instanceof Boolean
  );
}

/** jsonText's way for a value too deep for JSON.stringify (exported for its tests). */
export function deepJsonText(root: unknown): string | undefined {
  const first = serializable(root, '');
  if (first === OMITTED) return undefined;
  const out: string[] = [];
  const stack: unknown[] = [first];
  const onBranch = new Set<object>();
  while (stack.length > 0) {
    const next = stack.pop();
    if (next instanceof Written) {
      out.push(next.text);
      if (next.leaving) onBranch.delete(next.leaving);
      continue;
    }
    if (isLeaf(next)) {
      out.push(JSON.stringify(next) as string);
      continue;
    }
    const container = next as object;
    if (onBranch.has(container)) throw new TypeError('Converting circular structure to JSON');
    onBranch.add(container);
    // Pushed last-first, so that they pop in order: the opening bracket, the members with their separators, the close.
    const array = Array.isArray(container);
    stack.push(new Written(array ? ']' : '}', container));
    const members: unknown[] = [];
    if (array) {
      const items = container as unknown[];
      for (let i = 0; i < items.length; i++) {
        const v = serializable(items[i], String(i));
        if (i > 0) members.push(new Written(','));
        members.push(v === OMITTED ? new Written('null') : v);
      }
    } else {
      for (const key of Object.keys(container)) {
        const v = serializable((container as Record<string, unknown>)[key], key);
        if (v === OMITTED) continue;
        members.push(new Written(`${members.length > 0 ? ',' : ''}${JSON.stringify(key)}:`), v);
      }
    }
    for (let i = members.length - 1; i >= 0; i--) stack.push(members[i]);
    stack.push(new Written(array ? '[' : '{'));
  }
  return out.join('');
}
