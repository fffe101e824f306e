import { BlobTable } from './blob-table.js';
import { Frame } from './frame.js';
import { LiteralCutter } from './literal-cutter.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 512 * 1024 * 1024;

export interface LineHandlers {
  frame(frame: Frame): void;
  /** A line that is not a JSON-RPC message: logged and ignored, never fatal. */
  noise(line: string, reason: string): void;
  /** A line longer than the limit; its bytes were discarded. */
  oversize(bytes: number): void;
}

/**
 * Turns a byte stream of newline-delimited JSON-RPC (stdio) into frames.
 *
 * Linear in the input: a partial line is kept as a list of chunks and joined once, when its newline arrives (the
 * SDK's ReadBuffer concatenates its whole buffer on every chunk, which takes seconds for a 50 MB message). With
 * `cutLongLiterals`, long string literals are taken out of the stream as they arrive (literal-cutter.ts) and travel
 * with their frame as its blobs, so a 50 MB image never becomes one string.
 */
export class LineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  /** The long literals kept out of the lines (with `cutLongLiterals`). */
  readonly table?: BlobTable;
  private readonly cutter?: LiteralCutter;

  constructor(
    private readonly handlers: LineHandlers,
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
    cutLongLiterals = false,
    /** Literals this long are kept as blobs (literal-cutter.ts; tests set a smaller one). */
    blobBytes?: number,
  ) {
    if (cutLongLiterals) {
      this.table = new BlobTable();
      this.cutter = new LiteralCutter((bytes) => this.lines(bytes), maxMessageBytes, this.table, blobBytes);
    }
  }

  /**
   * The next chunk of the stream. `owned`: the caller hands it over and nobody reads it afterwards (the reader is the
   * stream's only 'data' listener): a chunk wholly inside a long literal written to a spool file is then freed at once
   * (held-literal.ts), rather than left for a garbage collection that may come only tens of megabytes later.
   */
  push(chunk: Buffer, owned = false): void {
    if (this.cutter) this.cutter.push(chunk, owned);
    else this.lines(chunk);
  }

  /** Drops a partial line, e.g. when the stream ends mid-message. Returns its size. */
  reset(): number {
    this.cutter?.reset();
    this.table?.dropMessageBlobs();
    const dropped = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
    return dropped;
  }

  private lines(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(0x0a);
    while (newline !== -1) {
      const tail = chunk.subarray(start, newline);
      if (this.discarding) {
        this.discarding = false;
        this.table?.dropMessageBlobs();
        this.handlers.oversize(this.pendingBytes + tail.length);
        this.pendingBytes = 0;
      } else if (this.pending.length === 0) {
        this.emit(tail);
      } else {
        this.pending.push(tail);
        const line = Buffer.concat(this.pending, this.pendingBytes + tail.length);
        this.pending = [];
        this.pendingBytes = 0;
        this.emit(line);
      }
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  private keep(rest: Buffer): void {
    this.pendingBytes += rest.length;
    if (this.discarding) return;
    if (this.pendingBytes > this.maxMessageBytes) {
      this.discarding = true;
      this.pending = [];
      return;
    }
    this.pending.push(rest);
  }

  private emit(bytes: Buffer): void {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end--;
    if (end === 0) return;
    const line = bytes.toString('utf8', 0, end);
    const blobs = this.table?.takeMessageBlobs();
    let frame: Frame;
    try {
      frame = Frame.read(line, blobs);
    } catch {
      blobs?.dispose();
      this.handlers.noise(line, 'not JSON');
      return;
    }
    if ((frame.message as { jsonrpc?: unknown } | null)?.jsonrpc !== '2.0' || frame.kind === 'invalid') {
      blobs?.dispose();
      this.handlers.noise(line, 'JSON but not JSON-RPC 2.0');
      return;
    }
    this.handlers.frame(frame);
  }
}

/** A preview of a noisy line for logs: never the whole of a huge line. */
export function preview(line: string, max = 200): string {
  return line.length <= max ? line : `${line.slice(0, max)}… (${line.length} chars)`;
}
