/**
 * Facts about text files, computed from the bytes: counting lines and characters needs no decode of the
 * whole file, so a 100 MB log costs one pass and no 200 MB string.
 */
import { countLines } from '../../artifacts/lines.js';

/** A rough token count (about 4 characters per token for English and code), to judge what reading costs. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const HEAD_LINES = 5;
const HEAD_LINE_CHARS = 200;
// Enough bytes for 5 lines of 200 characters even at 4 bytes a character, with room for long lines.
const HEAD_BYTES = 64 * 1024;

function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Decodes at most `maxBytes` from the start (BOM removed); a character cut at the end becomes U+FFFD. */
export function decodeStart(bytes: Uint8Array, maxBytes: number): string {
  const from = hasUtf8Bom(bytes) ? 3 : 0;
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(from, from + maxBytes));
}

/** UTF-16 length of the decoded text: lead bytes count one, 4-byte sequences two (a surrogate pair). */
function countChars(bytes: Uint8Array): number {
  let chars = 0;
  for (let i = hasUtf8Bom(bytes) ? 3 : 0; i < bytes.length; i++) {
    const b = bytes[i];
    if ((b & 0xc0) !== 0x80) chars += b >= 0xf0 ? 2 : 1;
  }
  return chars;
}

function cut(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

export interface TextFacts {
  lines: number;
  chars: number;
  estimatedTokens: number;
  /** The first 5 lines, each cut at 200 characters. */
  head: string[];
}

export function textFacts(bytes: Buffer): TextFacts {
  const chars = countChars(bytes);
  const start = decodeStart(bytes, HEAD_BYTES);
  const pieces = start === '' ? [] : start.split(/\r?\n/, HEAD_LINES + 1);
  // A final newline ends the last line rather than starting an empty one.
  if (pieces.length <= HEAD_LINES && bytes.length <= HEAD_BYTES && pieces.at(-1) === '') pieces.pop();
  const head = pieces.slice(0, HEAD_LINES);
  return {
    lines: countLines(bytes),
    chars,
    estimatedTokens: Math.ceil(chars / 4),
    head: head.map((line) => cut(line, HEAD_LINE_CHARS)),
  };
}

const MAX_COLUMNS = 20;

/** Splits one CSV/TSV record, honoring double quotes ("a,b" is one field, "" is a quote). */
function splitRecord(line: string, separator: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (ch === separator) {
      fields.push(field.trim());
      field = '';
    } else {
      field += ch;
    }
  }
  fields.push(field.trim());
  return fields;
}

export interface CsvFacts {
  /** The header row's first 20 names. */
  columns: string[];
  columnCount: number;
}

export function csvFacts(bytes: Buffer, separator: ',' | '\t'): CsvFacts | undefined {
  const firstLine = decodeStart(bytes, HEAD_BYTES).split(/\r?\n/, 1)[0] ?? '';
  if (firstLine.trim() === '') return undefined;
  const all = splitRecord(firstLine, separator);
  return { columns: all.slice(0, MAX_COLUMNS).map((c) => cut(c, 100)), columnCount: all.length };
}
