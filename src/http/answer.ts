import type { ServerResponse } from 'node:http';
import { byteLengthOf } from '../wire/blobs.js';
import type { Frame } from '../wire/frame.js';
import { KEEP_ALIVE, messageEvent, SSE_HEADERS } from '../wire/sse.js';

export interface LazyAnswerOptions {
  /** Headers of the response, either way. */
  headers: Record<string, string>;
  /** How often an open stream gets a keep-alive comment. */
  keepAliveMs: number;
  /** How long the request may go unanswered, nothing sent, before its stream opens anyway (`onDue`). */
  openAfterMs: number;
  /**
   * Called when the request has waited `openAfterMs`: it opens the stream (`openStream`), at once or once what must
   * come first (a priming event) is ready. Without it the stream opens then by itself.
   */
  onDue?: () => void;
}

/**
 * The response to one POST of one request, sent as the SDK's 2026-07-28 entry sends its own (its `auto` mode): an
 * answer that is the first thing to go out is one `application/json` body, with its own status, which a client reads
 * with one parse; anything else first (progress, a log message, a question of the server's) opens an SSE stream, and
 * everything after follows on it in order, with a keep-alive comment while it is quiet. A request quiet for
 * `openAfterMs` gets its stream too (the SDK's entry waits for ever): a 2025 session's call after
 * `http.streamAfterMs`, to be resumable; a 2026-07-28 call after a keep-alive interval, so that a long silent call
 * holds its connection past a load balancer's idle timeout while an answer within that time, an error that must be a
 * 400 included, keeps its status. Streamable HTTP lets a server answer a POST either way; clients must take both.
 */
export class LazyAnswer {
  private state: 'undecided' | 'sse' | 'done' = 'undecided';
  private timer?: NodeJS.Timeout;
  private keepAlive?: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: LazyAnswerOptions,
  ) {
    this.timer = setTimeout(() => (options.onDue ? options.onDue() : this.openStream()), options.openAfterMs);
    this.timer.unref();
    res.once('close', () => this.stopTimers());
  }

  get streaming(): boolean {
    return this.state === 'sse';
  }

  /** Whether the response is still to be decided: nothing went out yet. */
  get undecided(): boolean {
    return this.state === 'undecided';
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
      this.res.writeHead(status, {
        ...this.options.headers,
        'Content-Type': 'application/json',
        'Content-Length': String(byteLengthOf(pieces)),
      });
      for (const piece of pieces) this.res.write(piece);
      this.res.end();
      return;
    }
    for (const piece of messageEvent(frame, eventId)) this.res.write(piece);
    this.end();
  }

  /** Writes on an open stream only (a `retry:` line before it pauses). */
  whileStreaming(text: string): void {
    if (this.state === 'sse') this.res.write(text);
  }

  /** Commits the response to an SSE stream, `first` its first event; false when it was decided already. */
  openStream(first?: string): boolean {
    if (this.state !== 'undecided') return false;
    clearTimeout(this.timer);
    this.state = 'sse';
    this.res.writeHead(200, { ...this.options.headers, ...SSE_HEADERS });
    if (first !== undefined) this.res.write(first);
    else this.res.flushHeaders();
    this.keepAlive = setInterval(() => this.whileStreaming(KEEP_ALIVE), this.options.keepAliveMs);
    this.keepAlive.unref();
    return true;
  }

  end(): void {
    if (this.state === 'done') return;
    this.openStream();
    this.finish();
    this.res.end();
  }

  private finish(): void {
    this.stopTimers();
    this.state = 'done';
  }

  private stopTimers(): void {
    clearTimeout(this.timer);
    clearInterval(this.keepAlive);
  }
}
