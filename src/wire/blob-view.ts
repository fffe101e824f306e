import type { SpoolFile } from './spool.js';

/**
 * Bytes read from a spool file at a time, into one buffer used again and again: few reads (1 MiB measured faster than
 * 64 KiB). The decoder makes no string of them (codec/base64.ts): one of a megabyte would be an external string, whose
 * memory waits for a major collection.
 */
const READ_WINDOW = 1024 * 1024;

/**
 * One huge string literal kept as bytes (a JSON string without escapes is its own UTF-8 text): the buffers it arrived
 * in, or a range of the spool file it was written to as it arrived (spool.ts). Read without ever joining the bytes
 * into one string unless asked for the whole string.
 */
export class BlobView {
  private file?: SpoolFile;
  private start = 0;
  private disposed = false;

  constructor(
    /** The bytes in the pieces they arrived in (none for a spooled blob). */
    private readonly segments: readonly Buffer[],
    /** The literal's length in bytes. */
    readonly length: number,
  ) {}

  /** The bytes [start, start + length) of a spool file; the view holds the file until it is disposed. */
  static spooled(file: SpoolFile, start: number, length: number): BlobView {
    const view = new BlobView([], length);
    view.file = file.hold();
    view.start = start;
    return view;
  }

  /** Whether the bytes are in a file rather than in memory. */
  get spooled(): boolean {
    return this.file !== undefined;
  }

  /**
   * All the bytes, to be written out: the buffers they arrived in (no copy), or for a spooled blob its bytes read
   * into memory. Readers that can go piece by piece use `read`.
   */
  pieces(): readonly Buffer[] {
    return this.file ? [this.file.read(this.start, this.start + this.length)] : this.segments;
  }

  /**
   * The bytes in order, a piece at a time. A piece is valid only until the next is asked for: a spooled blob is read
   * into one buffer of `window` bytes, again and again, so reading it costs that much memory and no more.
   */
  *read(window = READ_WINDOW): Generator<Buffer> {
    const file = this.file;
    if (!file) return yield* this.segments;
    const buffer = Buffer.allocUnsafe(Math.min(window, this.length));
    for (let at = 0; at < this.length;) {
      const n = file.readInto(buffer.subarray(0, Math.min(buffer.length, this.length - at)), this.start + at);
      if (n === 0) throw new Error('a spooled literal is shorter than it was written');
      at += n;
      yield buffer.subarray(0, n);
    }
  }

  /** The first `bytes` bytes as a string (latin1: base64 and ASCII read as they are), enough to sniff. */
  head(bytes: number): string {
    const length = Math.min(bytes, this.length);
    if (this.file) return this.file.read(this.start, this.start + length).toString('latin1');
    const head: Buffer[] = [];
    let taken = 0;
    for (const segment of this.segments) {
      if (taken >= length) break;
      head.push(segment.subarray(0, length - taken));
      taken += head[head.length - 1].length;
    }
    return Buffer.concat(head, taken).toString('latin1');
  }

  /** The last `bytes` bytes (fewer when the blob is shorter), in a buffer of their own. */
  tail(bytes: number): Buffer {
    const length = Math.min(bytes, this.length);
    if (this.file) return this.file.read(this.start + this.length - length, this.start + this.length);
    const tail: Buffer[] = [];
    let taken = 0;
    for (let i = this.segments.length - 1; i >= 0 && taken < length; i--) {
      const segment = this.segments[i];
      tail.unshift(segment.subarray(Math.max(0, segment.length - (length - taken))));
      taken += tail[0].length;
    }
    return Buffer.concat(tail, taken);
  }

  /** The string it stands for, exactly as the upstream sent it. */
  text(): string {
    return (this.file ? this.pieces()[0] : Buffer.concat(this.segments, this.length)).toString('utf8');
  }

  /** Lets the bytes go: a spooled blob's file is closed once no view of it is left. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.file?.release();
  }
}

/** Whether a kept literal holds `needle` (ASCII), looking across the pieces' seams too. */
export function viewIncludes(view: BlobView, needle: string): boolean {
  const bytes = Buffer.from(needle, 'latin1');
  // The end of the previous piece, as much of it as may begin the needle (a copy: the piece may be reused).
  let carry = Buffer.alloc(0);
  for (const piece of view.read()) {
    if (piece.includes(bytes)) return true;
    const seam = Buffer.concat([carry, piece.subarray(0, bytes.length - 1)]);
    if (carry.length > 0 && seam.includes(bytes)) return true;
    const end = piece.length >= bytes.length - 1 ? piece : seam;
    carry = Buffer.from(end.subarray(Math.max(0, end.length - (bytes.length - 1))));
  }
  return false;
}

/** Whether two literals, kept or not (a string is its UTF-8 bytes), hold the same bytes; read a piece at a time. */
export function sameBytes(a: string | BlobView, b: string | BlobView): boolean {
  const reader = (value: string | BlobView): Iterator<Buffer> =>
    typeof value === 'string' ? [Buffer.from(value)][Symbol.iterator]() : value.read();
  // A piece is valid until its reader gives the next: each side holds one at a time, and where it is in it.
  const next = (from: Iterator<Buffer>): Buffer | undefined => {
    for (let step = from.next(); !step.done; step = from.next()) if (step.value.length > 0) return step.value;
    return undefined;
  };
  const [left, right] = [reader(a), reader(b)];
  let [x, y] = [next(left), next(right)];
  while (x && y) {
    const n = Math.min(x.length, y.length);
    if (!x.subarray(0, n).equals(y.subarray(0, n))) return false;
    x = n < x.length ? x.subarray(n) : next(left);
    y = n < y.length ? y.subarray(n) : next(right);
  }
  return x === undefined && y === undefined;
}
