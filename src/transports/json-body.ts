import { BlobTable } from '../wire/blob-table.js';
import type { Blobs } from '../wire/blobs.js';
import { Frame } from '../wire/frame.js';
import { LiteralCutter } from '../wire/literal-cutter.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../wire/lines.js';

export interface JsonBodyHandlers {
  /** One message's text, exactly as it stood in the body, with the blobs cut out of it. */
  value(text: string, blobs: Blobs): void;
  /** Something in the body that is no message (a bare string or number, a value cut short, stray bytes). */
  junk(reason: string): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Reads an `application/json` body as the messages it holds: one object, an array of them (the SDK's client reads
 * both), or several values one after another (a server that writes each message as it goes; the SDK's client fails
 * on that, but it costs nothing to accept). Each message's text is its own bytes from the body, so `Frame.read`
 * keeps it byte for byte; long literals are cut out as they arrive (literal-cutter.ts), and each message gets the
 * blobs cut from its own text.
 *
 * The scan only tracks strings and brackets; the messages' texts are parsed by Frame.read.
 */
export class JsonBodyReader {
  private readonly table = new BlobTable();
  private readonly cutter: LiteralCutter;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** A top-level array is open: its elements are the messages. */
  private batch = false;
  /** The text of the message being read, as the cutter passed it on. */
  private parts: Buffer[] | null = null;
  private junkSeen = false;

  constructor(
    private readonly handlers: JsonBodyHandlers,
    maxLiteralBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {
    this.cutter = new LiteralCutter((bytes) => this.scan(bytes), maxLiteralBytes, this.table);
  }

  push(chunk: Buffer): void {
    this.cutter.push(chunk);
  }

  /** The body ended; a message cut short is junk. */
  end(): void {
    if (this.parts || this.inString || this.depth > 0) this.handlers.junk('the body ended in the middle of a value');
    this.cutter.reset();
    this.table.dropMessageBlobs();
    this.parts = null;
  }

  private get messageDepth(): number {
    return this.batch ? 1 : 0;
  }

  private scan(bytes: Buffer): void {
    let start = 0;
    // Each searched again only once passed: one scan of the piece, not one per string or escape.
    let quote = -2;
    let backslash = -2;
    for (let i = 0; i < bytes.length; i++) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        if (quote !== -1 && quote < i) quote = bytes.indexOf(QUOTE, i);
        if (backslash !== -1 && backslash < i) backslash = bytes.indexOf(BACKSLASH, i);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          i = backslash;
          this.escaped = true;
        } else if (quote === -1) {
          break;
        } else {
          i = quote;
          this.inString = false;
        }
        continue;
      }
      const c = bytes[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (c === QUOTE) {
        this.inString = true;
        if (!this.parts) this.strayByte();
      } else if (c === 0x7b || c === 0x5b) {
        if (!this.parts && this.depth === 0 && c === 0x5b) {
          this.batch = true;
          this.depth = 1;
          continue;
        }
        if (!this.parts) {
          // Blobs kept outside any message (a huge bare string) are nobody's.
          this.table.dropMessageBlobs();
          this.parts = [];
          start = i;
        }
        this.depth++;
      } else if (c === 0x7d || c === 0x5d) {
        if (!this.parts) {
          if (this.batch && this.depth === 1 && c === 0x5d) {
            this.batch = false;
            this.depth = 0;
          } else {
            this.strayByte();
          }
          continue;
        }
        if (--this.depth === this.messageDepth) {
          this.parts.push(bytes.subarray(start, i + 1));
          this.emit();
        }
      } else if (!this.parts && !(c === 0x2c && this.batch)) {
        this.strayByte();
      }
    }
    if (this.parts) this.parts.push(bytes.subarray(start));
  }

  private emit(): void {
    const text = Buffer.concat(this.parts!).toString('utf8');
    this.parts = null;
    this.handlers.value(text, this.table.takeMessageBlobs());
  }

  private strayByte(): void {
    if (this.junkSeen) return;
    this.junkSeen = true;
    this.handlers.junk('the body holds a value that is not a JSON-RPC message');
  }
}

/**
 * The frame of a message read from the upstream, or undefined (the reason goes to `onerror`) when the text is not
 * JSON or not a JSON-RPC 2.0 message (the SDK's client drops those too, after its schema check).
 */
export function readFrame(text: string, blobs: Blobs, onerror: (error: Error) => void): Frame | undefined {
  let frame: Frame;
  try {
    frame = Frame.read(text, blobs);
  } catch (error) {
    blobs.dispose();
    onerror(error instanceof Error ? error : new Error(String(error)));
    return undefined;
  }
  if ((frame.message as { jsonrpc?: unknown } | null)?.jsonrpc !== '2.0' || frame.kind === 'invalid') {
    blobs.dispose();
    onerror(new Error(`not a JSON-RPC message: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`));
    return undefined;
  }
  return frame;
}
