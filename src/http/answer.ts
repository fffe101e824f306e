import type { ServerResponse } from 'node:http';
import type { Frame } from '../wire/frame.js';
import { messageEvent, SSE_HEADERS } from '../wire/sse.js';

/**
 * How long a request may go unanswered before its response becomes an SSE stream: a call answered sooner is sent as
 * one JSON body; a longer one gets the stream (and its priming event, where the session is resumable), whose cost
 * to the client is then a fraction of a percent.
 */
export const STREAM_AFTER_MS = 50;

/**
 * The response to one POST of one request, sent as the SDK's 2026-07-28 entry sends its own (its `auto` mode): an
 * answer that is the first thing to go out is one `application/json` body, which a client reads with one parse;
 * anything else first (progress, a log message, a question of the server's) opens an SSE stream, and everything
 * after follows on it in order. Streamable HTTP lets a server answer a POST either way; clients must take both.
 */
export class LazyAnswer {
  private state: 'undecided' | 'sse' | 'done' = 'undecided';
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
    /** Called when the stream opens (to write a priming event first). */
    private readonly onStream?: () => Array<string | Buffer> | undefined,
  ) {
    this.timer = setTimeout(() => this.openStream(), STREAM_AFTER_MS);
    this.timer.unref();
    res.once('close', () => clearTimeout(this.timer));
  }

  get streaming(): boolean {
    return this.state === 'sse';
  }

  /** A frame that is not the answer (or an answer after others): on the stream, which it opens. */
  event(pieces: Array<string | Buffer>): void {
    if (this.state === 'done') return;
    this.openStream();
    for (const piece of pieces) this.res.write(piece);
  }

  /** The answer: the whole JSON body when nothing went before it, else the stream's last event, which ends it. */
  answer(frame: Frame, status = 200, eventId?: string): void {
    if (this.state === 'done') return;
    if (this.state === 'undecided') {
      this.finish();
      const pieces = frame.chunks();
      const length = pieces.reduce((n, piece) => n + Buffer.byteLength(piece), 0);
      this.res.writeHead(status, {
        ...this.headers,
        'Content-Type': 'application/json',
        'Content-Length': String(length),
      });
      for (const piece of pieces) this.res.write(piece);
      this.res.end();
      return;
    }
    for (const piece of messageEvent(frame, eventId)) this.res.write(piece);
    this.end();
  }

  /** A keep-alive: only on an open stream. */
  whileStreaming(text: string): void {
    if (this.state === 'sse') this.res.write(text);
  }

  /** Commits the response to an SSE stream; false when it was decided already. */
  openStream(): boolean {
    if (this.state !== 'undecided') return false;
    clearTimeout(this.timer);
    this.state = 'sse';
    this.res.writeHead(200, { ...this.headers, ...SSE_HEADERS });
    const first = this.onStream?.();
    if (first) for (const piece of first) this.res.write(piece);
    else this.res.flushHeaders();
    return true;
  }

  end(): void {
    if (this.state === 'done') return;
    this.openStream();
    this.finish();
    this.res.end();
  }

  private finish(): void {
    clearTimeout(this.timer);
    this.state = 'done';
  }
}
