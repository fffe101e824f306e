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
  /** The value's own members, when it is an object the caller asked to have read in the same pass (`objectAt`). */
  inner?: ObjectSpan;
}

export interface ObjectSpan {
  /** Offset of `{`. */
  open: number;
  /** Offset of the matching `}`. */
  close: number;
  members: Member[];
}

const BRACKETS = /["{}[\]]/g;

/**
 * The members of the object whose `{` is at `open`; undefined when the text there is not an object. The value of a
 * member named in `within` that is an object is read as one (its members in `inner`) in the same pass, rather than
 * skipped and then read again: a frame's edits one level down (a request's `params._meta`, a result's `resultType`)
 * cost one scan of the text, not two.
 */
export function objectAt(text: string, open: number, within?: ReadonlySet<string>): ObjectSpan | undefined {
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
    const inner = within?.has(key) ? objectAt(text, valueStart) : undefined;
    const valueEnd = inner
      ? inner.close + 1
      : key === '_meta'
        ? metaEnd(text, valueStart)
        : valueEndAt(text, valueStart);
    if (valueEnd === -1) return undefined;
    members.push(inner ? { key, start: i, valueStart, valueEnd, inner } : { key, start: i, valueStart, valueEnd });
    at = skipSpace(text, valueEnd);
    const c = text.charCodeAt(at);
    if (c === 0x7d) return { open, close: at, members };
    if (c !== 0x2c) return undefined;
    i = skipSpace(text, at + 1);
  }
}

/**
 * `_meta` objects read lately: a 2026-07-28 client sends the same envelope (its version, identity and capabilities,
 * some hundreds of characters) in the `_meta` of every request, so its end is found by comparing it with the one
 * before rather than by scanning it again. A text that begins with an object's whole text at `start` has that
 * object's end there. Copies, kept few and short: they hold no message's text alive.
 */
const RECENT_META: string[] = [];
const RECENT_META_KEPT = 4;
const META_CHARS = { least: 64, most: 4096 };

function metaEnd(text: string, start: number): number {
  for (const meta of RECENT_META) if (text.startsWith(meta, start)) return start + meta.length;
  const end = valueEndAt(text, start);
  const length = end - start;
  if (end !== -1 && length >= META_CHARS.least && length <= META_CHARS.most && text.charCodeAt(start) === 0x7b) {
    // A copy of its own (a slice would keep the whole message's text alive): the text written and read back. (A lone
    // surrogate would come back as U+FFFD: still inside its string, so the copy is still a whole object's text.)
    if (RECENT_META.length === RECENT_META_KEPT) RECENT_META.pop();
    RECENT_META.unshift(Buffer.from(text.slice(start, end)).toString());
  }
  return end;
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

/**
 * The offset just past the bracket that closes the one at `open`. The regular expression finds the next quote or
 * bracket (it skips a run of digits or spaces faster than a loop over the characters would); `test` and `lastIndex`
 * rather than `exec`, which made a match object for every one found: on a message of a few hundred characters that
 * was half the time.
 */
function bracketEnd(text: string, open: number): number {
  let depth = 0;
  BRACKETS.lastIndex = open;
  while (BRACKETS.test(text)) {
    const at = BRACKETS.lastIndex - 1;
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
  return -1;
}

/** Keys the quick lookup handles: characters JSON can write another way only as a `\u` escape. */
const PLAIN_KEY = /^[A-Za-z0-9_$-]+$/;

/** Leading members the quick lookup reads past before giving up (a message's id comes first or second). */
const LEADING_MEMBERS = 4;

/**
 * Where the value of top-level member `key` of the object text sits, found without reading the whole text: the id
 * of a message, which writers put among the first members (`{"jsonrpc":"2.0","id":1,...}`) or last
 * (`{"result":{...},"jsonrpc":"2.0","id":1}`). Undefined when it cannot be told that way (the member is elsewhere, or
 * the key may be given twice, where JSON.parse reads the last one): the caller then reads the whole object.
 */
export function memberValue(text: string, key: string): { start: number; end: number } | undefined {
  if (!PLAIN_KEY.test(key)) return undefined;
  return lastMemberValue(text, key) ?? leadingMemberValue(text, key);
}

/** The value of `key` when it is the object's last member, a number or a string without escapes. */
function lastMemberValue(text: string, key: string): { start: number; end: number } | undefined {
  let close = text.length - 1;
  while (close > 0 && isSpace(text.charCodeAt(close))) close--;
  if (text.charCodeAt(close) !== 0x7d) return undefined;
  let end = close;
  while (isSpace(text.charCodeAt(end - 1))) end--;
  let start: number;
  if (text.charCodeAt(end - 1) === 0x22) {
    const open = text.lastIndexOf('"', end - 2);
    if (open < 0) return undefined;
    const slash = text.indexOf('\\', open - 1);
    if (slash !== -1 && slash < end) return undefined;
    start = open;
  } else {
    start = end;
    while (start > 0 && isNumberChar(text.charCodeAt(start - 1))) start--;
    if (start === end) return undefined;
  }
  let at = start - 1;
  while (isSpace(text.charCodeAt(at))) at--;
  if (text.charCodeAt(at) !== 0x3a) return undefined;
  at--;
  while (isSpace(text.charCodeAt(at))) at--;
  const keyOpen = at - key.length - 1;
  if (text.charCodeAt(at) !== 0x22 || text.charCodeAt(keyOpen) !== 0x22) return undefined;
  if (text.slice(keyOpen + 1, at) !== key) return undefined;
  let before = keyOpen - 1;
  while (isSpace(text.charCodeAt(before))) before--;
  const c = text.charCodeAt(before);
  return c === 0x2c || c === 0x7b ? { start, end } : undefined;
}

/**
 * The value of `key` among the object's first few members, each read as it comes, when the key appears nowhere after
 * it (so the member is not given twice: a later spelling of a plain key is `"key"` or holds a `\u` escape).
 */
function leadingMemberValue(text: string, key: string): { start: number; end: number } | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  i = skipSpace(text, i + 1);
  for (let member = 0; member < LEADING_MEMBERS; member++) {
    if (text.charCodeAt(i) !== 0x22) return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1) return undefined;
    let at = skipSpace(text, keyEnd + 1);
    if (text.charCodeAt(at) !== 0x3a) return undefined;
    const start = skipSpace(text, at + 1);
    const first = text.charCodeAt(start);
    // A nested value would have to be read through: left to the whole-object reading.
    if (first === 0x7b || first === 0x5b) return undefined;
    const end = valueEndAt(text, start);
    if (end === -1) return undefined;
    if (keyEnd - i - 1 === key.length && text.startsWith(key, i + 1)) {
      const again = quotedAfter(text, key, end) || text.indexOf('\\u', end) !== -1;
      return again ? undefined : { start, end };
    }
    at = skipSpace(text, end);
    if (text.charCodeAt(at) !== 0x2c) return undefined;
    i = skipSpace(text, at + 1);
  }
  return undefined;
}

/**
 * Whether `"key"` occurs in `text` from `from` on. Looked for as `key"` and then its opening quote: a quote starts
 * every string of JSON text, so a search led by one stops at each, where the key's first letter is seldom there.
 */
function quotedAfter(text: string, key: string, from: number): boolean {
  const tail = `${key}"`;
  for (let at = text.indexOf(tail, from + 1); at !== -1; at = text.indexOf(tail, at + 1))
    if (text.charCodeAt(at - 1) === 0x22) return true;
  return false;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** A character of a JSON number. */
function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}
