import { BlobView } from './blob-view.js';
import { Parts, LongRunCheck, type LiteralBytes } from './inlay.js';
import { SpoolFile, spoolMinBytes } from './spool.js';

/**
 * The content of one long string literal while it arrives (literal-cutter.ts): the chunks themselves, in memory,
 * until it passes `spoolMinBytes`; from there on, a spool file (spool.ts) it is written to as it comes, so that a
 * 50 MB payload is never held whole. A chunk handed over (`owned`) is freed as soon as it is written: the pipe's
 * buffers would otherwise wait for a garbage collection, which the JavaScript heap, small and quiet meanwhile, does
 * not ask for until tens of megabytes of them pile up. When the disk refuses (full, read-only), the literal goes on
 * in memory.
 */
export class HeldLiteral {
  private parts: Buffer[] = [];
  /** The parts in memory that are ours to free once spooled. */
  private readonly owned = new Set<Buffer>();
  private file?: SpoolFile;
  /** The disk refused it once: this literal stays in memory. */
  private refused = false;
  bytes = 0;
  private readonly runCheck: LongRunCheck;

  constructor(
    /** Inner strings this long are kept as blobs (inlay.ts). */
    blobBytes: number,
  ) {
    this.runCheck = new LongRunCheck(blobBytes);
  }

  /** The next part; `owned`: nobody else reads it, and it may be freed once written to the spool file. */
  add(part: Buffer, owned = false): void {
    this.bytes += part.length;
    this.runCheck.add(part);
    if (this.file?.append(part)) {
      if (owned) free(part);
      return;
    }
    if (this.file) this.backToMemory();
    this.parts.push(part);
    if (owned) this.owned.add(part);
    if (!this.file && !this.refused && this.bytes >= spoolMinBytes()) this.spool();
  }

  /** Whether inner strings may be long enough to keep as blobs (worth the walk of inlay.ts). */
  get mayHoldRun(): boolean {
    return this.runCheck.possible;
  }

  /** The content, to scan for inner strings. */
  content(): LiteralBytes {
    return this.file ? new FileBytes(this.file) : new Parts(this.parts);
  }

  /** Bytes [start, end) as a blob: a range of the spool file, or the pieces in memory. */
  view(start: number, end: number): BlobView {
    if (this.file) return BlobView.spooled(this.file, start, end - start);
    return new BlobView(new Parts(this.parts).slice(start, end), end - start);
  }

  /** All the bytes, to pass on as they came (read back into memory when spooled). */
  contents(): Buffer[] {
    return this.file ? [this.file.read(0, this.file.length)] : this.parts;
  }

  /** Done with: the spool file stays only as long as views of it do. */
  release(): void {
    this.file?.release();
    this.file = undefined;
    this.parts = [];
    this.owned.clear();
  }

  private spool(): void {
    const file = SpoolFile.create();
    if (file && this.parts.every((part) => file.append(part))) {
      for (const part of this.owned) free(part);
      this.owned.clear();
      this.parts = [];
      this.file = file;
      return;
    }
    file?.release();
    this.refused = true;
  }

  /** The disk refused a write: what was spooled comes back into memory, where the rest will go too. */
  private backToMemory(): void {
    const file = this.file!;
    this.file = undefined;
    this.refused = true;
    this.parts = [file.read(0, file.length)];
    file.release();
  }
}

/**
 * Frees a chunk that is ours, and spooled now: detaching its buffer releases the memory at once. Only a chunk that is
 * its buffer's whole: a view into a larger one shares it with others.
 */
function free(part: Buffer): void {
  const buffer = part.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  if (part.byteOffset !== 0 || part.byteLength !== buffer.byteLength) return;
  try {
    buffer.transfer?.(0);
  } catch {
    // Not detachable: the collector takes it, as it would have.
  }
}

/** Bytes read from a spool file through one window, moved forward as the scan goes. */
const WINDOW_BYTES = 1024 * 1024;

class FileBytes implements LiteralBytes {
  readonly length: number;
  private readonly window: Buffer;
  private windowStart = 0;
  private windowLength = 0;

  constructor(private readonly file: SpoolFile) {
    this.length = file.length;
    this.window = Buffer.allocUnsafe(Math.min(WINDOW_BYTES, file.length));
  }

  byteAt(offset: number): number {
    if (offset < 0 || offset >= this.length) return -1;
    if (offset < this.windowStart || offset >= this.windowStart + this.windowLength) this.load(offset);
    return this.window[offset - this.windowStart];
  }

  indexOfBackslash(from: number): number {
    for (let at = Math.max(0, from); at < this.length; at = this.windowStart + this.windowLength) {
      if (at < this.windowStart || at >= this.windowStart + this.windowLength) this.load(at);
      const found = this.window.subarray(0, this.windowLength).indexOf(0x5c, at - this.windowStart);
      if (found !== -1) return this.windowStart + found;
    }
    return -1;
  }

  slice(start: number, end: number): Buffer[] {
    return end > start ? [this.file.read(start, end)] : [];
  }

  private load(offset: number): void {
    this.windowStart = offset;
    this.windowLength = this.file.readInto(
      this.window.subarray(0, Math.min(WINDOW_BYTES, this.length - offset)),
      offset,
    );
  }
}
