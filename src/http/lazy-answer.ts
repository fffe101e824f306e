import type { ServerResponse } from 'node:http';
import { restoreExactNumbers } from '../codec/exact-numbers.js';

/**
 * How long a call served on the lean POST may go unanswered before its response becomes the SSE stream the SDK would
 * have opened at once: its headers, and its priming event when the session keeps an event store (an event id to
 * resume from). A call answered sooner is sent as one JSON body; for a call that takes longer, the client's cost of
 * reading SSE (about 0.1 ms) is a fraction of a percent.
 */
export const STREAM_AFTER_MS = 50;

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * The response to one POST of a request, sent the way the SDK's 2026-07-28 entry sends its own (its `auto` response
 * mode): an answer that is the first thing to go out is one `application/json` body (`json`), which a client reads
 * with one `JSON.parse` where an SSE stream costs it a web-stream pipeline (docs/performance.md, "A JSON answer");
 * otherwise the response is the SSE stream it always was, fed the frames the SDK's transport writes (`enqueue`).
 * Streamable HTTP lets a server answer a POST either way, and a client must accept both (the lean POST is taken only
 * when its Accept names both). Anything else first (a log message, progress, a question of the server's, a
 * keep-alive, a priming event) opens the stream, and everything after follows on it in order.
 */
export class LazyAnswer {
  private state: 'undecided' | 'sse' | 'done' = 'undecided';
  /** A frame that came while undecided: it opens the stream once the current turn's synchronous work is done. */
  private held: string | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly sessionId: string | undefined,
  ) {}

  /**
   * What the SDK's transport calls for each frame (it takes this for its ReadableStream controller). The SDK writes a
   * frame's message itself, so the numbers the proxy carries as text are put back here (codec/exact-numbers.ts).
   */
  enqueue(sdkFrame: string): void {
    const frame = restoreExactNumbers(sdkFrame);
    if (this.state === 'sse') {
      this.res.write(frame);
    } else if (this.state === 'undecided') {
      if (this.held === undefined) {
        this.held = frame;
        queueMicrotask(() => this.openStream());
      } else {
        this.openStream();
        this.res.write(frame);
      }
    }
  }

  /** A frame for an open stream only (a keep-alive): dropped while the answer may still go as JSON, or after it. */
  whileStreaming(frame: string): void {
    if (this.state === 'sse') this.res.write(frame);
  }

  /** Sends `json` (one message) as the whole response, if nothing went or waits to go before it; else false. */
  json(json: string, status = 200): boolean {
    if (this.state !== 'undecided' || this.held !== undefined) return false;
    this.state = 'done';
    this.res.writeHead(
      status,
      this.withSession({ 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(json)) }),
    );
    this.res.end(json);
    return true;
  }

  /** Commits the response to an SSE stream (the held frame first); false when it was already decided. */
  openStream(): boolean {
    if (this.state !== 'undecided') return false;
    this.state = 'sse';
    this.res.writeHead(200, this.withSession(SSE_HEADERS));
    if (this.held === undefined) this.res.flushHeaders();
    else this.res.write(this.held);
    this.held = undefined;
    return true;
  }

  /** The SDK is done with the stream: it ends (an SSE stream, empty if nothing came, unless the JSON answer went). */
  end(): void {
    this.openStream();
    this.state = 'done';
    this.res.end();
  }

  private withSession(headers: Record<string, string>): Record<string, string> {
    return this.sessionId === undefined ? headers : { ...headers, 'mcp-session-id': this.sessionId };
  }
}
