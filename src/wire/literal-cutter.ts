import { BLOB_LITERAL_BYTES, type BlobTable } from './blob-table.js';
import { HeldLiteral } from './held-literal.js';
import { findRuns, inlay } from './inlay.js';

const QUOTE = Buffer.from('"');

/**
 * Sits in front of the line reader of an upstream's stdout and takes long string literals out of
 * the stream as they arrive. A literal that spans chunks is held back as the chunks themselves (no
 * copy), or past a few megabytes written to a spool file (held-literal.ts); once it closes, a long one
 * without escapes is kept as a blob (see blob-table.ts) and a short marker string goes on in its place;
 * in a long one with escapes, the long strings of the JSON it carries are kept as blobs with their markers
 * inlaid (inlay.ts); any other is passed on as it was. The line reader therefore never joins the payload's
 * bytes into one buffer, and JSON.parse never sees them.
 *
 * Newlines cannot occur inside a JSON string, so a newline outside one ends the message and resets
 * the state; the output is valid JSON exactly when the input is.
 */
export class LiteralCutter {
  private inString = false;
  /** The previous byte was a backslash inside a string. */
  private escapeNext = false;
  private hasEscape = false;
  /** The literal's content so far, once it has crossed a chunk boundary; null while it fits its chunk. */
  private held: HeldLiteral | null = null;
  /** The literal was too long to hold: the rest of it goes straight on. */
  private passThrough = false;

  constructor(
    private readonly output: (bytes: Buffer) => void,
    /** A literal longer than this is passed on, for the line reader's own limit to refuse. */
    private readonly maxLiteralBytes: number,
    private readonly table: BlobTable,
    /** Literals (and inner strings of an escaped one) this long are kept as blobs. */
    private readonly blobBytes = BLOB_LITERAL_BYTES,
  ) {}

  /**
   * The next chunk of the stream. `owned`: the caller hands it over, nobody else reads it afterwards (the stream's
   * only reader): wholly inside a spooled literal, it is then freed as soon as it is written (held-literal.ts).
   */
  push(chunk: Buffer, owned = false): void {
    // A chunk shorter than a blob that starts outside a literal and ends a line (the usual small message): none of its
    // literals can be long, and after its newline, which no JSON string holds, no literal is open. It goes on
    // without a look at its strings.
    if (!this.inString && chunk.length < this.blobBytes && chunk[chunk.length - 1] === 0x0a) {
      this.output(chunk);
      return;
    }
    let emitted = 0;
    let position = 0;
    let literalStart = 0;
    // Found once per chunk and moved on only when passed: one scan of the chunk, not one per string.
    let nextBackslash = -2;
    while (position < chunk.length) {
      if (!this.inString) {
        const quote = chunk.indexOf(0x22, position);
        if (quote === -1) break;
        this.inString = true;
        this.hasEscape = false;
        position = literalStart = quote + 1;
        continue;
      }
      if (this.escapeNext) {
        this.escapeNext = false;
        position++;
        continue;
      }
      if (nextBackslash !== -1 && nextBackslash < position) nextBackslash = chunk.indexOf(0x5c, position);
      const quote = chunk.indexOf(0x22, position);
      if (nextBackslash !== -1 && (quote === -1 || nextBackslash < quote)) {
        this.hasEscape = true;
        this.escapeNext = true;
        position = nextBackslash + 1;
        continue;
      }
      if (quote === -1) break;
      this.inString = false;
      position = quote + 1;
      if (this.passThrough) {
        this.passThrough = false;
      } else if (this.held) {
        this.held.add(chunk.subarray(0, quote));
        this.closeHeldLiteral();
        emitted = quote + 1;
      }
    }
    if (!this.inString || this.passThrough) {
      if (emitted < chunk.length) this.output(chunk.subarray(emitted));
      return;
    }
    // The literal goes on in the next chunk: hold its content back from here on.
    if (!this.held) {
      if (literalStart - 1 > emitted) this.output(chunk.subarray(emitted, literalStart - 1));
      this.held = new HeldLiteral(this.blobBytes);
      this.held.add(chunk.subarray(literalStart));
    } else {
      this.held.add(chunk, owned);
    }
    if (this.held.bytes > this.maxLiteralBytes) this.release();
  }

  /** Forgets a message cut short (the stream ended in the middle of it). */
  reset(): void {
    this.inString = false;
    this.escapeNext = false;
    this.passThrough = false;
    this.held?.release();
    this.held = null;
  }

  private closeHeldLiteral(): void {
    const held = this.held!;
    this.held = null;
    try {
      if (held.bytes < this.blobBytes) return this.passOn(held.contents());
      if (!this.hasEscape) return this.output(Buffer.from(JSON.stringify(this.table.keep(held.view(0, held.bytes)))));
      // JSON inside the string: its long inner strings are kept, the rest goes on with their markers.
      const content = held.content();
      const runs = held.mayHoldRun ? findRuns(content, this.blobBytes) : [];
      if (!runs.length) return this.passOn(held.contents());
      const keep = (start: number, end: number) => this.table.inlaidMarkerBytes(this.table.keep(held.view(start, end)));
      this.passOn(inlay(content, runs, keep));
    } finally {
      // The blobs hold what they need of it.
      held.release();
    }
  }

  private passOn(content: readonly Buffer[]): void {
    this.output(QUOTE);
    for (const part of content) this.output(part);
    this.output(QUOTE);
  }

  /** Gives up holding an oversized literal: its bytes go on, to be refused by the line limit. */
  private release(): void {
    this.output(QUOTE);
    for (const part of this.held!.contents()) this.output(part);
    this.held!.release();
    this.held = null;
    this.passThrough = true;
  }
}
