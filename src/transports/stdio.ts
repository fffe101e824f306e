import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../logger.js';
import type { Frame } from '../wire/frame.js';
import { LineReader, preview } from '../wire/lines.js';
import type { Wire } from '../wire/wire.js';
import { writeChunks } from '../wire/write-stream.js';

/**
 * The proxy's own stdio endpoint towards its MCP client: newline-delimited JSON-RPC on stdin and stdout. No message
 * size limit but the configured one, reads in linear time, and long literals are kept out of the frames' text. The
 * end of stdin is a close.
 */
export class StdioWire implements Wire {
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private closed = false;
  private readonly reader: LineReader;

  constructor(
    private readonly log: Logger,
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    maxMessageBytes?: number,
  ) {
    this.reader = new LineReader(
      {
        frame: (frame) => this.onframe?.(frame),
        noise: (line, reason) => log.warn({ line: preview(line) }, `ignored a line from the client (${reason})`),
        oversize: (bytes) => this.onerror?.(new Error(`discarded a ${bytes}-byte client message over the size limit`)),
      },
      maxMessageBytes,
      true,
    );
  }

  /** Starts reading: frames read before `onframe` is set would be lost. */
  start(): void {
    this.stdin.on('data', this.onData);
    this.stdin.once('end', this.onEnd);
    this.stdin.once('close', this.onEnd);
    this.stdout.on('error', this.onStdoutError);
  }

  send(frame: Frame): Promise<void> {
    if (this.closed) return Promise.reject(new Error('stdio is closed'));
    return writeChunks(this.stdout, frame.pieces(true), '\n');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.stdin.pause();
    this.onclose?.();
  }

  /** A chunk is the reader's to free only while nobody else reads stdin (LineReader.push). */
  private readonly onData = (chunk: Buffer) => this.reader.push(chunk, this.stdin.listenerCount('data') === 1);

  private readonly onEnd = () => {
    void this.close();
  };

  private readonly onStdoutError = (error: Error) => {
    this.log.debug({ err: error }, 'stdout error');
    void this.close();
  };
}
