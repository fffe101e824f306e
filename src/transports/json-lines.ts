import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { parseExact, restoreExactNumbers } from '../codec/exact-numbers.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 512 * 1024 * 1024;

export interface JsonLineHandlers {
  message(message: JSONRPCMessage): void;
  /** A line that is not a JSON-RPC message: logged and ignored, never fatal. */
  noise(line: string, reason: string): void;
  /** A line longer than the limit; its bytes were discarded. */
  oversize(bytes: number): void;
}

/**
 * Splits a byte stream into newline-delimited JSON-RPC messages.
 *
 * Linear in the input: a partial line is kept as a list of chunks and joined once, when its
 * newline arrives. (The SDK's ReadBuffer concatenates its whole buffer on every chunk, which is
 * quadratic and takes seconds for a 50 MB message.)
 */
export class JsonLineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;

  constructor(
    private readonly handlers: JsonLineHandlers,
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(0x0a);
    while (newline !== -1) {
      const tail = chunk.subarray(start, newline);
      if (this.discarding) {
        this.discarding = false;
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

  /** Drops a partial line, e.g. when the stream ends mid-message. Returns its size. */
  reset(): number {
    const dropped = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
    return dropped;
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
    let value: unknown;
    try {
      value = parseExact(line);
    } catch {
      this.handlers.noise(line, 'not JSON');
      return;
    }
    if (!isJsonRpc(value)) {
      this.handlers.noise(line, 'JSON but not JSON-RPC 2.0');
      return;
    }
    this.handlers.message(value);
  }
}

function isJsonRpc(value: unknown): value is JSONRPCMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { jsonrpc?: unknown }).jsonrpc === '2.0'
  );
}

/** Serializes one message as a line, its numbers as exact as they came (codec/exact-numbers.ts). */
export function toLine(message: JSONRPCMessage): string {
  return restoreExactNumbers(JSON.stringify(message)) + '\n';
}

/** A preview of a noisy line for logs: never the whole of a huge line. */
export function preview(line: string, max = 200): string {
  return line.length <= max ? line : `${line.slice(0, max)}… (${line.length} chars)`;
}
