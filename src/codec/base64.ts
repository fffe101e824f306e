/**
 * Base64, every way the proxy meets it: as a string (a JSON field, a text block, a `data:` URI) or as the
 * pieces of bytes a huge literal arrived in, or was spooled to (see wire/blob-view.ts). Both alphabets (standard `+/`,
 * url-safe `-_`), padded or not; MIME line breaks only in strings (a JSON literal without escapes cannot
 * hold one). Decoding is strict: a value that is not base64 gives undefined or an error, never garbage
 * bytes. Encoding gives back each of the four standard forms exactly.
 */

// Character classes, indexed by char code (< 128); 0 = not base64.
const DATA = 1; // A-Z a-z 0-9
const STANDARD_ONLY = 2; // + /
const URL_SAFE_ONLY = 3; // - _
const PAD = 4; // =
const LINE_BREAK = 5; // \r \n (MIME base64 wraps every 76 characters)

const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9]/.test(ch)) CLASS[c] = DATA;
}
CLASS['+'.charCodeAt(0)] = STANDARD_ONLY;
CLASS['/'.charCodeAt(0)] = STANDARD_ONLY;
CLASS['-'.charCodeAt(0)] = URL_SAFE_ONLY;
CLASS['_'.charCodeAt(0)] = URL_SAFE_ONLY;
CLASS['='.charCodeAt(0)] = PAD;
CLASS['\r'.charCodeAt(0)] = LINE_BREAK;
CLASS['\n'.charCodeAt(0)] = LINE_BREAK;

/** The value of each base64 character of either alphabet (Node reads both), by char code; -1: not one. */
const SEXTET = new Int8Array(256).fill(-1);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
for (let i = 0; i < ALPHABET.length; i++) SEXTET[ALPHABET.charCodeAt(i)] = i;
SEXTET[0x2b] = SEXTET[0x2d] = 62; // + -
SEXTET[0x2f] = SEXTET[0x5f] = 63; // / _

function classOf(code: number): number {
  return code < 128 ? CLASS[code] : 0;
}

/** How base64 is written: its alphabet and whether it is padded (`utf8` is a payload that is its own text). */
export type PayloadEncoding = 'base64' | 'base64-unpadded' | 'base64url' | 'base64url-unpadded' | 'utf8';

export const PAYLOAD_ENCODINGS: readonly PayloadEncoding[] = [
  'base64',
  'base64-unpadded',
  'base64url',
  'base64url-unpadded',
  'utf8',
];

/** Bytes written in one of the standard forms: the exact inverse of a strict decode of that form. */
export function encodePayload(bytes: Buffer, encoding: PayloadEncoding): string {
  switch (encoding) {
    case 'base64':
      return bytes.toString('base64');
    case 'base64-unpadded':
      return bytes.toString('base64').replace(/=+$/, '');
    case 'base64url':
      return bytes.toString('base64url').padEnd(Math.ceil(bytes.length / 3) * 4, '=');
    case 'base64url-unpadded':
      return bytes.toString('base64url');
    case 'utf8':
      return bytes.toString('utf8');
  }
}

function encodingFor(urlSafe: boolean, padded: boolean): PayloadEncoding {
  if (urlSafe) return padded ? 'base64url' : 'base64url-unpadded';
  return padded ? 'base64' : 'base64-unpadded';
}

/** The base64 form a string most likely is, judged from its characters (its end, mostly: it may be long). */
export function likelyEncoding(payload: string): PayloadEncoding {
  const urlSafe = /[-_]/.test(payload.slice(-4096)) || (!/[+/]/.test(payload) && /[-_]/.test(payload));
  return encodingFor(urlSafe, payload.endsWith('='));
}

/**
 * How base64 held as pieces is written (alphabet, padding): with the bytes it decodes to, that is the
 * literal, so it can be put back without ever being a string. Undefined for a mix of alphabets.
 */
export function encodingOfPieces(run: PieceRun): PayloadEncoding | undefined {
  let standard = false; // + /
  let urlSafe = false; // - _
  for (const piece of run.read()) {
    standard ||= piece.indexOf(0x2b) !== -1 || piece.indexOf(0x2f) !== -1;
    urlSafe ||= piece.indexOf(0x2d) !== -1 || piece.indexOf(0x5f) !== -1;
    if (standard && urlSafe) return undefined;
  }
  const last = run.tail(1);
  return encodingFor(urlSafe, last.length > 0 && last[0] === 0x3d);
}

/**
 * The standard form `payload` is written in, told from the string alone, when `size` bytes are its strict decode
 * (decodeBase64Strict): one alphabet, padded as its end says and as long as that form of `size` bytes is (so no line
 * break), and no stray bits in its last character, which a decoder ignores. Then encoding the bytes in that form gives
 * back `payload` exactly, and it is the form `likelyEncoding` names. Undefined when it is not one exactly.
 */
export function canonicalEncoding(payload: string, size: number): PayloadEncoding | undefined {
  const tail = size % 3;
  const pad = tail === 0 ? 0 : 3 - tail;
  const data = Math.ceil((size * 4) / 3);
  const padded = payload.endsWith('=');
  const length = padded ? data + pad : data;
  if (
    payload.length !== length ||
    (padded && (pad === 0 || !payload.endsWith(PADDING[pad]) || payload[data - 1] === '='))
  )
    return undefined;
  // Standard base64 of any size nearly always shows a `+` or `/` early; the url-safe search then settles it.
  const standard = payload.indexOf('+') !== -1 || payload.indexOf('/') !== -1;
  const urlSafe = payload.indexOf('-') !== -1 || payload.indexOf('_') !== -1;
  if (standard && urlSafe) return undefined;
  // The last data character's bits past the last byte: zero in the standard forms (a decoder ignores them).
  if (tail !== 0 && ((SEXTET[payload.charCodeAt(data - 1)] ?? -1) & (tail === 1 ? 0x0f : 0x03)) !== 0) return undefined;
  return encodingFor(urlSafe, padded);
}

const PADDING = ['', '=', '=='];

/** Index just past the last character that is not a line break. */
function endWithoutTrailingBreaks(s: string): number {
  let end = s.length;
  while (end > 0 && classOf(s.charCodeAt(end - 1)) === LINE_BREAK) end--;
  return end;
}

const HEAD_SAMPLE = 256;
const TAIL_SAMPLE = 64;
const MIDDLE_SAMPLE = 32;

/**
 * Cheap pre-check: long enough, and a sample (the first 256 characters, the last 64, three windows in the
 * middle) is all base64 alphabet with `=` only in the last two places and no mix of the standard (`+/`) and
 * url-safe (`-_`) alphabets. Bails out at the first space, so ordinary text costs almost nothing.
 */
export function mightBeBase64(s: string, minLength: number): boolean {
  const n = s.length;
  if (n < minLength || n < 4) return false;
  const end = endWithoutTrailingBreaks(s);
  const windows: Array<[number, number]> = [
    [0, Math.min(HEAD_SAMPLE, n)],
    [Math.floor(n / 4), Math.floor(n / 4) + MIDDLE_SAMPLE],
    [Math.floor(n / 2), Math.floor(n / 2) + MIDDLE_SAMPLE],
    [Math.floor((3 * n) / 4), Math.floor((3 * n) / 4) + MIDDLE_SAMPLE],
    [Math.max(0, n - TAIL_SAMPLE), n],
  ];
  let standard = false;
  let urlSafe = false;
  for (const [from, to] of windows) {
    for (let i = from; i < Math.min(to, n); i++) {
      const cls = classOf(s.charCodeAt(i));
      if (cls === 0) return false;
      if (cls === PAD && i < end - 2) return false;
      if (cls === STANDARD_ONLY) standard = true;
      else if (cls === URL_SAFE_ONLY) urlSafe = true;
    }
  }
  return !(standard && urlSafe);
}

/**
 * Decodes only the start of a base64 string, enough for a magic-byte sniff (file-type reads at most 4100
 * bytes). Line breaks are skipped; both alphabets decode (Node's decoder accepts `-_` as well as `+/`).
 */
export function decodeBase64Prefix(s: string, bytes = 4100): Buffer {
  const wanted = Math.ceil(Math.max(0, bytes) / 3) * 4;
  let significant = 0;
  let sawBreak = false;
  let i = 0;
  for (; i < s.length && significant < wanted; i++) {
    if (classOf(s.charCodeAt(i)) === LINE_BREAK) sawBreak = true;
    else significant++;
  }
  const chunk = sawBreak ? s.slice(0, i).replace(/[\r\n]+/g, '') : s.slice(0, i);
  return Buffer.from(chunk, 'base64').subarray(0, bytes);
}

const UNWRAPPED_STANDARD = /^[A-Za-z0-9+/]+(={0,2})$/;
const UNWRAPPED_URL_SAFE = /^[A-Za-z0-9_-]+(={0,2})$/;

/**
 * One linear pass over the whole string: base64 alphabet only, one alphabet (standard or url-safe), `=` only
 * as up to two padding characters at the end, lines (if wrapped) all the same length as the first, and a
 * length that can be decoded (padded: a multiple of 4; unpadded: not 1 more than one).
 */
export function isFullyBase64(s: string): boolean {
  // The common case, one unwrapped line, is checked by the regex engine: several times faster than
  // the loop below on the tens of megabytes a payload can be.
  const unwrapped = UNWRAPPED_STANDARD.exec(s) ?? UNWRAPPED_URL_SAFE.exec(s);
  if (unwrapped) {
    const data = s.length - unwrapped[1].length;
    return unwrapped[1].length > 0 ? s.length % 4 === 0 : data % 4 !== 1;
  }
  let data = 0;
  let pad = 0;
  let standard = false;
  let urlSafe = false;
  let lineLength = 0;
  let fullLineLength = -1; // the wrap width, set by the first line that more data follows
  let endedLine = -1; // length of the line the last break ended; judged once we know more data follows
  for (let i = 0; i < s.length; i++) {
    const cls = classOf(s.charCodeAt(i));
    if (cls === LINE_BREAK) {
      if (lineLength > 0) endedLine = lineLength; // blank lines and the \n of \r\n add nothing
      lineLength = 0;
      continue;
    }
    if (cls === 0) return false;
    if (endedLine !== -1) {
      // More data after a line: that line was a full one, and every full line has the same width.
      if (fullLineLength === -1) {
        if (endedLine % 4 !== 0) return false;
        fullLineLength = endedLine;
      } else if (endedLine !== fullLineLength) {
        return false;
      }
      endedLine = -1;
    }
    if (cls === PAD) {
      pad++;
      if (pad > 2) return false;
    } else {
      if (pad > 0) return false; // data after padding
      data++;
      if (cls === STANDARD_ONLY) standard = true;
      else if (cls === URL_SAFE_ONLY) urlSafe = true;
    }
    lineLength++;
  }
  const lastLine = lineLength > 0 ? lineLength : endedLine;
  if (fullLineLength !== -1 && lastLine > fullLineLength) return false;
  if (data === 0 || (standard && urlSafe)) return false;
  if (pad > 0) return (data + pad) % 4 === 0;
  return data % 4 !== 1;
}

/**
 * The bytes of a base64 string (standard or URL-safe alphabet, line breaks allowed), or undefined
 * if it is not valid base64: never garbage bytes.
 */
export function decodeBase64Strict(value: string): Buffer | undefined {
  // Node's decoder skips what is not base64 and stops at '=', so a valid string is exactly the one
  // that decodes to the length its characters promise; only a wrapped one needs the slow check.
  if (value.length === paddingOf(value)) return undefined;
  // Lengths only tell on one unbroken line; line breaks count in value.length, so wrapped base64 goes
  // to the full check below whatever its length says.
  const size = unbrokenSize(value);
  if (size !== undefined) {
    const unwrapped = decodeInPieces(value, size);
    if (unwrapped) return unwrapped;
  }
  const bytes = Buffer.from(value, 'base64');
  return isFullyBase64(value) ? bytes : undefined;
}

/**
 * The bytes an unwrapped base64 string decodes to. A strict decode that yields exactly this many
 * skipped no character: the string holds nothing but base64 (no line break, no control character).
 */
export function promisedBytes(value: string): number {
  return Math.floor(((value.length - paddingOf(value)) * 3) / 4);
}

/** Decoded size of a base64 string without decoding it. */
export function decodedSize(value: string): number {
  return Math.floor((value.length * 3) / 4) - paddingOf(value);
}

function paddingOf(value: string): number {
  return value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
}

/** Characters decoded at a time: a multiple of 4, small enough to stay in the CPU's cache. */
const PIECE_CHARS = 1024 * 1024;

/**
 * Decodes a string piece by piece into one buffer of the promised `size`; undefined as soon as a piece
 * comes out short (a character the decoder skipped). Several times faster on tens of megabytes than
 * one `Buffer.from`, which first copies the whole string into a temporary buffer.
 */
function decodeInPieces(value: string, size: number): Buffer | undefined {
  const out = Buffer.allocUnsafe(size);
  let written = 0;
  for (const [group, expected] of stringGroups(value, size)) {
    if (out.write(group, written, 'base64') !== expected) return undefined;
    written += expected;
  }
  return out;
}

/**
 * An unbroken base64 string (no line break) decoded a piece at a time, as blobs are (`decodePieces`): two windows
 * take turns, so the store writes one while the next is decoded and the decoded payload is never whole in memory.
 * `size` is `unbrokenSize(value)`. Throws NotBase64Error at the first piece that comes out short: a character the
 * decoder skipped, a line break among them (wrapped base64 is decoded whole instead, by `decodeBase64Strict`).
 */
export function* decodeStringPieces(value: string, size: number): Generator<Buffer> {
  const windows: Buffer[] = [];
  let turn = 0;
  for (const [group, expected] of stringGroups(value, size)) {
    turn = 1 - turn;
    const window = (windows[turn] ??= Buffer.allocUnsafe(Math.min((PIECE_CHARS / 4) * 3, size)));
    if (window.write(group, 0, 'base64') !== expected) throw new NotBase64Error();
    yield window.subarray(0, expected);
  }
}

/** The bytes a base64 string of one line promises, when its length and padding can be base64; else undefined. */
export function unbrokenSize(value: string): number | undefined {
  const padding = paddingOf(value);
  const characters = value.length - padding;
  if (characters === 0 || characters % 4 === 1 || (padding > 0 && value.length % 4 !== 0)) return undefined;
  return promisedBytes(value);
}

/** A string's pieces of `PIECE_CHARS` characters, each with the bytes it decodes to when it is base64. */
function* stringGroups(value: string, size: number): Generator<[string, number]> {
  let promised = 0;
  for (let at = 0; at < value.length; at += PIECE_CHARS) {
    const expected = at + PIECE_CHARS >= value.length ? size - promised : (PIECE_CHARS / 4) * 3;
    yield [value.slice(at, at + PIECE_CHARS), expected];
    promised += expected;
  }
}

/**
 * Bytes held in pieces, read front to back: a blob (wire/blob-view.ts), whose pieces are the buffers a literal
 * arrived in or windows read from its spool file, or any list of buffers (`pieceRun`).
 */
export interface PieceRun {
  readonly length: number;
  /**
   * Read from a file (wire/spool.ts): decoded straight from the bytes, a little slower than through strings but
   * without them, as it is held out of memory for memory's sake (see decodePieces).
   */
  readonly spooled?: boolean;
  /** The bytes in order; a piece may be valid only until the next is asked for. */
  read(): Iterable<Buffer>;
  /** The last `bytes` bytes (all of them when there are fewer). */
  tail(bytes: number): Buffer;
}

/** Buffers in memory as a PieceRun. */
export function pieceRun(
  pieces: readonly Buffer[],
  length = pieces.reduce((n, piece) => n + piece.length, 0),
): PieceRun {
  return {
    length,
    read: () => pieces,
    tail(bytes) {
      const tail: Buffer[] = [];
      let taken = 0;
      for (let i = pieces.length - 1; i >= 0 && taken < bytes; i--) {
        tail.unshift(pieces[i].subarray(Math.max(0, pieces[i].length - (bytes - taken))));
        taken += tail[0].length;
      }
      return Buffer.concat(tail, taken);
    },
  };
}

/** Base64 held as pieces of bytes, checked for a length base64 can have. */
export interface Base64Pieces {
  run: PieceRun;
  /** Where the base64 characters end, before any padding. */
  end: number;
  /** The bytes it decodes to. */
  size: number;
}

/**
 * Base64 held as pieces of bytes, if its length and padding can be base64. Only the unwrapped form,
 * the one a JSON string without escapes can hold, is accepted (either alphabet).
 */
export function base64Pieces(run: PieceRun): Base64Pieces | undefined {
  const { length } = run;
  const padding = trailingPadding(run);
  const end = length - padding;
  if ((padding > 0 && length % 4 !== 0) || end % 4 === 1 || end <= 0) return undefined;
  return { run, end, size: Math.floor((end * 3) / 4) };
}

/** Decoded size of base64 held as pieces, without decoding it. */
export function decodedSizeOfPieces(run: PieceRun): number {
  return Math.floor((run.length * 3) / 4) - trailingPadding(run);
}

/** Thrown, as a value is decoded, when it turns out not to be base64. */
export class NotBase64Error extends Error {
  constructor() {
    super('invalid base64: the payload is not base64');
    this.name = 'NotBase64Error';
  }
}

/**
 * The decoded bytes of base64 held as pieces, in windows of up to `windowBytes`. Two buffers take turns: a consumer
 * may write one while the next is decoded, and keeps neither longer (see PieceSource), so decoding a payload costs
 * two windows of memory whatever its size. Throws NotBase64Error at the first piece that proves the value is not
 * base64, so the whole decoded payload never has to be in memory to find out.
 */
export function* decodePieces({ run, end, size }: Base64Pieces, windowBytes: number): Generator<Buffer> {
  const windows: Buffer[] = [];
  let turn = 0;
  let window: Buffer | undefined;
  let filled = 0;
  let written = 0;
  let carry = '';
  let consumed = 0;
  for (const piece of run.read()) {
    if (consumed >= end) break;
    const take = Math.min(piece.length, end - consumed);
    if (take === 0) continue;
    consumed += take;
    // A spooled blob's windows (whole groups of four) are decoded from the bytes themselves: no string is made. Node's
    // decoder, from a string, is twice as fast, but 50 MB of strings grow the young generation of the JavaScript heap,
    // for good, by tens of megabytes: the memory spooling saved.
    const direct =
      run.spooled === true && carry === '' && take % 4 === 0 && consumed !== end && piece.byteOffset % 2 === 0;
    let group = '';
    if (!direct) {
      const text = carry + piece.toString('latin1', 0, take);
      const whole = consumed === end ? text.length : text.length - (text.length % 4);
      carry = text.slice(whole);
      group = text.slice(0, whole);
    }
    const expected = direct ? (take / 4) * 3 : Math.floor((group.length * 3) / 4);
    if (!window || expected > window.length - filled) {
      if (window && filled > 0) yield window.subarray(0, filled);
      const length = Math.max(Math.min(windowBytes, size - written), expected);
      turn = 1 - turn;
      window = windows[turn] && windows[turn].length >= length ? windows[turn] : Buffer.allocUnsafe(length);
      windows[turn] = window;
      filled = 0;
    }
    // A character the decoder skips leaves the group short: then the payload is not base64.
    const decoded = direct ? decodeGroups(piece, take, window, filled) : window.write(group, filled, 'base64');
    if (decoded !== expected) throw new NotBase64Error();
    filled += expected;
    written += expected;
  }
  if (written !== size) throw new NotBase64Error();
  if (window && filled > 0) yield window.subarray(0, filled);
}

/** For two characters at a time, read as one 16-bit unit: their 12 bits, placed first or last in a group of four. */
interface PairTables {
  first: Int32Array;
  last: Int32Array;
}
let pairTables: PairTables | undefined;

/** Built on first use (512 KiB): a byte that is not base64 gives the sign bit, in either alphabet (as Node reads). */
function pairs(): PairTables {
  if (pairTables) return pairTables;
  const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const first = new Int32Array(65536).fill(-1 << 30);
  const last = new Int32Array(65536).fill(-1 << 30);
  for (let a = 0; a < 256; a++) {
    for (let b = 0; b < 256; b++) {
      if (SEXTET[a] < 0 || SEXTET[b] < 0) continue;
      const unit = littleEndian ? a | (b << 8) : (a << 8) | b;
      first[unit] = (SEXTET[a] << 18) | (SEXTET[b] << 12);
      last[unit] = (SEXTET[a] << 6) | SEXTET[b];
    }
  }
  return (pairTables = { first, last });
}

/**
 * Decodes `length` bytes of base64 (whole groups of four, no padding; at an even offset) into `out` at `at`: what
 * `out.write(string, at, 'base64')` does with their string. Answers the bytes written, or -1 when a byte is not base64
 * (a padding `=` included: whole groups come before the end).
 */
function decodeGroups(bytes: Uint8Array, length: number, out: Buffer, at: number): number {
  const { first, last } = pairs();
  const units = new Uint16Array(bytes.buffer, bytes.byteOffset, length >> 1);
  let invalid = 0;
  let o = at;
  for (let i = 0; i < units.length; i += 2) {
    const bits = first[units[i]] | last[units[i + 1]];
    invalid |= bits;
    out[o] = bits >>> 16;
    out[o + 1] = bits >>> 8;
    out[o + 2] = bits;
    o += 3;
  }
  return invalid < 0 ? -1 : o - at;
}

/** The bytes of base64 held as pieces, decoded at once; undefined when it is not base64. */
export function decodeBase64PiecesStrict(pieces: readonly Buffer[], length: number): Buffer | undefined {
  const shape = base64Pieces(pieceRun(pieces, length));
  if (!shape) return undefined;
  try {
    // One window as large as the payload: the single piece is the answer, not a copy of it.
    const [bytes] = decodePieces(shape, Number.MAX_SAFE_INTEGER);
    return bytes ?? Buffer.alloc(0);
  } catch (error) {
    if (error instanceof NotBase64Error) return undefined;
    throw error;
  }
}

/** How many `=` end the value (at most two). */
function trailingPadding(run: PieceRun): number {
  const tail = run.tail(2);
  let padding = 0;
  for (let i = tail.length - 1; i >= 0 && tail[i] === 0x3d; i--) padding++;
  return padding;
}
