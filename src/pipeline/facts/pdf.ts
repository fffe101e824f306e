/**
 * A PDF's page count: by counting `/Type /Page` objects in the bytes as they pass, which works when page
 * objects are stored plainly (most generators, and every PDF before 1.5), else a linearized file's `/N`;
 * when neither tells and the file has compressed object streams (where the pages then sit), from the page
 * tree, read by pdf.js (pdf-pages.ts) for files it can hold in memory. No count rather than a wrong one.
 * The scan comes first because it is cheap: pdf.js costs its loading and a copy of the file in memory on
 * every file it opens. Only the first 50 MB are scanned.
 */
import { MAX_PARSED_BYTES, pdfPageCount } from './pdf-pages.js';

export const MAX_SCAN_BYTES = 50 * 1024 * 1024;
/** Bytes of the file's start the linearization dictionary is looked for in. */
export const LINEARIZED_HEAD_BYTES = 2048;
const TYPE = Buffer.from('/Type', 'latin1');
const PAGE = Buffer.from('/Page', 'latin1');
const OBJECT_STREAM = Buffer.from('/ObjStm', 'latin1');
// The linearization dictionary is the first object of a linearized file and holds the page count as /N.
const LINEARIZED_PAGES = /\/Linearized\s[^>]{0,200}?\/N\s+(\d+)/;

export async function pdfFacts(bytes: Buffer): Promise<{ pages?: number }> {
  const counter = new PageCounter();
  counter.add(bytes);
  return pdfFactsOrParsed(counter, bytes, async () => bytes, bytes.length);
}

/**
 * The facts of the byte scan (`counter`, fed the whole file), else of the page tree when the file is small enough
 * to parse and has compressed object streams: page objects the scan cannot see sit in them, and without any pdf.js
 * finds none either. So a file without them is never read back.
 */
export async function pdfFactsOrParsed(
  counter: PageCounter,
  head: Buffer,
  readAll: () => Promise<Uint8Array>,
  size: number,
): Promise<{ pages?: number }> {
  const scanned = pdfFactsOf(counter.finish(), head);
  if (scanned.pages !== undefined || size > MAX_PARSED_BYTES || !counter.objectStreams) return scanned;
  const pages = await pdfPageCount(await readAll());
  return pages !== undefined ? { pages } : {};
}

/**
 * The facts from a count of page objects and the file's first bytes (`LINEARIZED_HEAD_BYTES` of them, if it has them).
 */
function pdfFactsOf(pageObjects: number, head: Buffer): { pages?: number } {
  if (pageObjects > 0) return { pages: pageObjects };
  const linearized = LINEARIZED_PAGES.exec(head.toString('latin1', 0, Math.min(LINEARIZED_HEAD_BYTES, head.length)));
  if (linearized) return { pages: Number(linearized[1]) };
  return {};
}

/**
 * Counts matches of `/Type\s*\/Page(?![a-zA-Z])` in the bytes read as latin1, over the first
 * `MAX_SCAN_BYTES` of bytes fed in any number of pieces, with the same answer as for the whole: a
 * match cut by a piece's end is carried over (its spaces squeezed to one, so a long run costs nothing).
 * Found by the buffer's own search for `/Type` rather than a regular expression over a string.
 */
export class PageCounter {
  private pages = 0;
  private scanned = 0;
  /** The start of a match not decided yet, or the end of the last piece if it may begin `/Type`. */
  private pending: Buffer = Buffer.alloc(0);
  /** Whether `/ObjStm` (a compressed object stream) is anywhere in what was fed, scanned part or not. */
  objectStreams = false;
  /** The end of what was fed, as much of it as may begin `/ObjStm`. */
  private streamTail: Buffer = Buffer.alloc(0);

  add(piece: Uint8Array): void {
    this.noteObjectStreams(piece);
    const room = MAX_SCAN_BYTES - this.scanned;
    if (room <= 0 || piece.length === 0) return;
    const bytes = Buffer.from(piece.buffer, piece.byteOffset, Math.min(piece.length, room));
    this.scanned += bytes.length;
    let carried: Buffer | undefined;
    if (this.pending.length > 0) {
      // Matches that start in the carried bytes, decided with the start of this piece (all of it if need be).
      const from = this.pending.length;
      let joined = Buffer.concat([this.pending, bytes.subarray(0, 64)]);
      let undecided = this.scan(joined, from, false);
      if (undecided !== -1 && bytes.length > 64) {
        joined = Buffer.concat([this.pending, bytes]);
        undecided = this.scan(joined, from, false);
      }
      if (undecided !== -1) carried = squeeze(joined.subarray(undecided));
    }
    const undecided = this.scan(bytes, bytes.length, false);
    // A piece shorter than `/Typ` may end a `/Type` begun in the carried bytes ("/Type/" then "T").
    const tail = bytes.length >= TYPE.length - 1 ? bytes : Buffer.concat([this.pending, bytes]);
    this.pending = carried ?? (undecided !== -1 ? squeeze(bytes.subarray(undecided)) : typeStartAtEnd(tail));
  }

  private noteObjectStreams(piece: Uint8Array): void {
    if (this.objectStreams || piece.length === 0) return;
    const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.length);
    const keep = OBJECT_STREAM.length - 1;
    const start = Buffer.concat([this.streamTail, bytes.subarray(0, keep)]);
    if (start.includes(OBJECT_STREAM) || bytes.includes(OBJECT_STREAM)) {
      this.objectStreams = true;
      return;
    }
    const end = bytes.length >= keep ? bytes : start;
    this.streamTail = Buffer.from(end.subarray(Math.max(0, end.length - keep)));
  }

  /** The count, the end of what was fed being the end of the file (or of the scanned part). */
  finish(): number {
    if (this.pending.length > 0) this.scan(this.pending, this.pending.length, true);
    this.pending = Buffer.alloc(0);
    return this.pages;
  }

  /**
   * Counts the matches starting before `before`; answers where one starts that the end of `bytes`
   * leaves undecided (-1 if none), unless `atEnd` says nothing follows.
   */
  private scan(bytes: Buffer, before: number, atEnd: boolean): number {
    for (let at = bytes.indexOf(TYPE); at !== -1 && at < before; at = bytes.indexOf(TYPE, at + 1)) {
      let next = at + TYPE.length;
      while (next < bytes.length && isLatin1Space(bytes[next])) next++;
      if (next + PAGE.length > bytes.length) {
        if (!atEnd && PAGE.subarray(0, bytes.length - next).equals(bytes.subarray(next))) return at;
        continue;
      }
      if (bytes.compare(PAGE, 0, PAGE.length, next, next + PAGE.length) !== 0) continue;
      const after = next + PAGE.length;
      if (after < bytes.length) {
        if (!isLetter(bytes[after])) this.pages++;
      } else if (atEnd) {
        this.pages++;
      } else {
        return at;
      }
    }
    return -1;
  }
}

/** An undecided match (`/Type`, spaces, part of `/Page`) with its spaces squeezed to one: a copy. */
function squeeze(match: Buffer): Buffer {
  let next = TYPE.length;
  while (next < match.length && isLatin1Space(match[next])) next++;
  return Buffer.concat([TYPE, next > TYPE.length ? Buffer.from(' ') : Buffer.alloc(0), match.subarray(next)]);
}

/** The end of `bytes` that is the start of `/Type` (a copy; empty if none). */
function typeStartAtEnd(bytes: Buffer): Buffer {
  for (let k = Math.min(TYPE.length - 1, bytes.length); k > 0; k--) {
    if (bytes.subarray(bytes.length - k).equals(TYPE.subarray(0, k)))
      return Buffer.from(bytes.subarray(bytes.length - k));
  }
  return Buffer.alloc(0);
}

/** What `\s` matches among latin1 characters. */
function isLatin1Space(byte: number): boolean {
  return (byte >= 0x09 && byte <= 0x0d) || byte === 0x20 || byte === 0xa0;
}

function isLetter(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}
