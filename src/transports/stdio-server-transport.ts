import type { Readable, Writable } from 'node:stream';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { JsonLineReader, preview, toLine } from './json-lines.js';
import { writeWithBackpressure } from './write-stream.js';

/**
 * The proxy's own stdio endpoint towards the MCP client. Unlike the SDK's StdioServerTransport it
 * has no 10 MB message limit and reads in linear time; it reports the end of stdin as a close.
 */
export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private closed = false;
  private readonly reader: JsonLineReader;

  constructor(
    private readonly log: Logger,
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    maxMessageBytes?: number,
  ) {
    this.reader = new JsonLineReader(
      {
        message: (message) => this.onmessage?.(message),
        noise: (line, reason) => log.warn({ line: preview(line) }, `ignored a line from the client (${reason})`),
        oversize: (bytes) => this.onerror?.(new Error(`discarded a ${bytes}-byte client message over the size limit`)),
      },
      maxMessageBytes,
    );
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.once('end', this.onEnd);
    this.stdin.once('close', this.onEnd);
    this.stdout.on('error', this.onStdoutError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('stdio transport is closed'));
    return writeWithBackpressure(this.stdout, toLine(message));
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

  private readonly onData = (chunk: Buffer) => this.reader.push(chunk);

  private readonly onEnd = () => {
    void this.close();
  };

  private readonly onStdoutError = (error: Error) => {
    this.log.debug({ err: error }, 'stdout error');
    void this.close();
  };
}
