import { BlobTable } from '../wire/blob-table.js';
import type { Blobs } from '../wire/blobs.js';
import { LiteralCutter } from '../wire/literal-cutter.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../wire/lines.js';

/** One server-sent event; `blobs` are the long literals of its data, kept out of `data`. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  blobs: Blobs;
}

export interface SseHandlers {
  event(event: SseEvent): void;
  /** A `retry:` field: how long to wait before reconnecting. */
  retry?(ms: number): void;
  /** An event whose data passed the size limit; it was dropped. */
  oversize?(bytes: number): void;
}

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const DATA_PREFIX = Buffer.from('data:');
const NEWLINE = Buffer.from('\n');
/** Lines other than `data:` (ids, event names, comments) are short; a longer one is ignored, not kept. */
const MAX_FIELD_LINE_BYTES = 64 * 1024;

/**
 * A `text/event-stream` parser on bytes, with the events eventsource-parser (the SDK's) would give: an event is
 * dispatched at a blank line when it had a `data` field, its data lines joined with `\n`; `id` and `event` are the
 * event's own. Unlike a parser on strings, the data of an event goes through a LiteralCutter as it arrives, so a
 * 50 MB image in one `data:` line never becomes one string (nor one buffer): its long literals become the event's
 * blobs, as on stdio (wire/lines.ts). Raw CR and LF cannot occur inside a JSON string, so the first one after
 * `data:` ends the line even in the middle of a huge payload.
 */
export class SseReader {
  private readonly table = new BlobTable();
  private readonly cutter: LiteralCutter;
  private first = true;
  /** The previous chunk ended with CR: an LF starting this one belongs to that line end. */
  private skipLF = false;
  /** Inside a `data:` line, its value streaming into the cutter. */
  private inData = false;
  /** The optional space after `data:` has yet to be looked at (it may start the next chunk). */
  private dataSpace = false;
  /** The current line so far, while it is not a `data:` line (or not known to be one yet). */
  private line: Buffer[] = [];
  private lineBytes = 0;
  private id?: string;
  private type?: string;
  private dataLines = 0;
  /** The event's data as the cutter passed it on: text with markers where the long literals were. */
  private data: Buffer[] = [];
  private dataBytes = 0;
  private discarding = false;

  constructor(
    private readonly handlers: SseHandlers,
    private readonly maxEventBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {
    this.cutter = new LiteralCutter((bytes) => this.data.push(bytes), maxEventBytes, this.table);
  }

  push(chunk: Buffer): void {
    let i = 0;
    if (this.first) {
      this.first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    if (this.skipLF) {
      this.skipLF = false;
      if (chunk[i] === LF) i++;
    }
    // Where the next CR and LF are, each searched again only once passed: one scan of the chunk, not one per line.
    let cr = -2;
    let lf = -2;
    while (i < chunk.length) {
      if (this.inData && this.dataSpace) {
        this.dataSpace = false;
        if (chunk[i] === SPACE) i++;
        continue;
      }
      if (cr !== -1 && cr < i) cr = chunk.indexOf(CR, i);
      if (lf !== -1 && lf < i) lf = chunk.indexOf(LF, i);
      const end = cr === -1 ? lf : lf === -1 || cr < lf ? cr : lf;
      const stop = end === -1 ? chunk.length : end;
      if (this.inData) {
        if (stop > i) this.feedData(chunk.subarray(i, stop));
      } else if (this.lineBytes < DATA_PREFIX.length && this.startsData(chunk.subarray(i, stop))) {
        // The line is a `data:` line: what follows the prefix streams into the cutter.
        i += DATA_PREFIX.length - this.lineBytes;
        this.line = [];
        this.lineBytes = 0;
        this.startDataLine();
        this.inData = true;
        this.dataSpace = true;
        continue;
      } else if (stop > i) {
        this.lineBytes += stop - i;
        if (this.lineBytes <= MAX_FIELD_LINE_BYTES) this.line.push(chunk.subarray(i, stop));
      }
      if (end === -1) return;
      i = end + 1;
      if (chunk[end] === CR) {
        if (i === chunk.length) this.skipLF = true;
        else if (chunk[i] === LF) i++;
      }
      this.endLine();
    }
  }

  /** The stream ended: an event not ended by a blank line is dropped, as EventSource drops it. */
  end(): void {
    this.reset();
  }

  private startsData(piece: Buffer): boolean {
    const needed = DATA_PREFIX.length - this.lineBytes;
    if (piece.length < needed) return false;
    const head =
      this.lineBytes === 0 ? piece.subarray(0, needed) : Buffer.concat([...this.line, piece.subarray(0, needed)]);
    return head.equals(DATA_PREFIX);
  }

  private startDataLine(): void {
    if (this.dataLines++ > 0) this.feedData(NEWLINE);
  }

  private feedData(bytes: Buffer): void {
    this.dataBytes += bytes.length;
    if (this.discarding) return;
    if (this.dataBytes > this.maxEventBytes) {
      this.discarding = true;
      this.cutter.reset();
      this.table.dropMessageBlobs();
      this.data = [];
      return;
    }
    this.cutter.push(bytes);
  }

  private endLine(): void {
    if (this.inData) {
      this.inData = false;
      this.dataSpace = false;
      return;
    }
    const overlong = this.lineBytes > MAX_FIELD_LINE_BYTES;
    const text = overlong ? undefined : Buffer.concat(this.line, this.lineBytes).toString('utf8');
    const empty = this.lineBytes === 0;
    this.line = [];
    this.lineBytes = 0;
    if (empty) return this.dispatch();
    if (text !== undefined) this.field(text);
  }

  private field(line: string): void {
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1);
    switch (name) {
      case 'event':
        this.type = value || undefined;
        return;
      case 'data': // `data` alone: an empty data line
        return this.startDataLine();
      case 'id':
        if (!value.includes('\0')) this.id = value;
        return;
      case 'retry':
        if (/^\d+$/.test(value)) this.handlers.retry?.(parseInt(value, 10));
        return;
      default:
    }
  }

  private dispatch(): void {
    const { id, type, dataLines, discarding, dataBytes } = this;
    // Data that left a string open (not JSON) must not hold its bytes back for the next event.
    this.cutter.reset();
    const text = dataLines > 0 && !discarding ? Buffer.concat(this.data).toString('utf8') : '';
    const blobs = this.table.takeMessageBlobs();
    this.reset();
    if (discarding) {
      blobs.dispose();
      this.handlers.oversize?.(dataBytes);
      return;
    }
    if (dataLines === 0) return blobs.dispose();
    this.handlers.event({
      ...(id !== undefined ? { id } : {}),
      ...(type !== undefined ? { event: type } : {}),
      data: text,
      blobs,
    });
  }

  private reset(): void {
    this.cutter.reset();
    this.table.dropMessageBlobs();
    this.id = undefined;
    this.type = undefined;
    this.dataLines = 0;
    this.data = [];
    this.dataBytes = 0;
    this.discarding = false;
  }
}
