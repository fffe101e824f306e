import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Frame } from '../wire/frame.js';
import { KEEP_ALIVE, messageEvent } from '../wire/sse.js';
import type { FrameContext, Wire } from '../wire/wire.js';
import { writeChunks } from '../wire/write-stream.js';

/** How often the stream gets a keep-alive comment. */
const KEEP_ALIVE_MS = 30_000;

/**
 * The server side of the deprecated HTTP+SSE transport (protocol 2024-11-05) as a wire: everything for the client
 * goes out as events on the GET stream, messages from it arrive as POSTs to `endpoint?sessionId=…`. SDK v2 keeps
 * this transport only in a frozen package that brings Express along; the proxy still serves clients that speak
 * only SSE.
 */
export class SseSession implements Wire {
  readonly id = randomUUID();
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;
  private keepAlive?: NodeJS.Timeout;

  constructor(
    private readonly endpoint: string,
    private readonly res: ServerResponse,
  ) {
    res.on('close', () => this.ended());
  }

  /**
   * Starts the stream with its first event, the endpoint that carries this session's id. Called only once the session
   * can be found by that id (here, and through Redis on every replica): a client may POST the moment it reads it.
   */
  open(): void {
    const { res } = this;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
    });
    const url = new URL(this.endpoint, 'http://localhost');
    url.searchParams.set('sessionId', this.id);
    res.write(`event: endpoint\ndata: ${url.pathname}${url.search}${url.hash}\n\n`);
    this.keepAlive = setInterval(() => res.write(KEEP_ALIVE), KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  /** One POSTed message: 202, or 400 when the body is not JSON-RPC. */
  post(res: ServerResponse, frame: Frame, context: FrameContext): void {
    if (frame.kind === 'invalid') {
      res.writeHead(400).end('Invalid message: not a JSON-RPC message');
      return;
    }
    res.writeHead(202).end('Accepted');
    this.onframe?.(frame, context);
  }

  send(frame: Frame): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the SSE stream is closed'));
    return writeChunks(this.res, messageEvent(frame));
  }

  async close(): Promise<void> {
    this.res.end();
    this.ended();
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.onclose?.();
  }
}
