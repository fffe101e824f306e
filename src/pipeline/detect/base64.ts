/**
 * Finding base64-encoded binary files inside strings. A string is called binary only when its decoded start
 * carries a known magic signature (via `sniff`), so hashes, tokens, IDs and prose never are: the signature is
 * what keeps false positives out, the alphabet checks only keep the cost down.
 */
import { sniff } from '../../artifacts/mime.js';
import { isBinaryMimeType } from '../../artifacts/mime.js';

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

function classOf(code: number): number {
  return code < 128 ? CLASS[code] : 0;
}

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

export interface DetectedBinary {
  mimeType: string;
  ext: string;
}

/**
 * The file type of a string that is base64 of a binary file, else undefined. Steps, cheapest first: sampled
 * alphabet check, decode of the first 4100 bytes, magic-byte sniff (must be a binary type: a sniffed XML or
 * text is not hidden binary), then a full validation of the string. Never throws.
 */
export async function detectBase64Binary(
  s: string,
  minLength = 1000,
  validate = true,
): Promise<DetectedBinary | undefined> {
  try {
    if (!mightBeBase64(s, minLength)) return undefined;
    const prefix = decodeBase64Prefix(s);
    if (prefix.length === 0) return undefined;
    const type = await sniff(prefix);
    if (!type || !isBinaryMimeType(type.mimeType)) return undefined;
    if (validate && !isFullyBase64(s)) return undefined;
    return { mimeType: type.mimeType, ext: type.ext };
  } catch {
    // A sniffer failure on malformed bytes means "no recognizable signature", not an error for the caller.
    return undefined;
  }
}
