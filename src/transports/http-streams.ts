import type { IncomingMessage } from 'node:http';
import type { Signal } from '../rpc/cancellation.js';
import type { Frame } from '../wire/frame.js';
import { delay, readEventStream } from './http-wire.js';

/** How a stream that dropped is reopened; the defaults are the SDK's. */
export interface ReconnectionOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  growFactor: number;
  /** Reopenings in a row that bring nothing (or fail) before giving up. */
  maxRetries: number;
}

export const DEFAULT_RECONNECTION: ReconnectionOptions = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  growFactor: 1.5,
  maxRetries: 2,
};

/** Where streams come from: a GET, resuming after `lastEventId` when there is one. */
export interface StreamSource {
  /** The open stream, or undefined when there is none to be had (405, or the session is gone). */
  open(lastEventId: string | undefined, signal: Signal): Promise<IncomingMessage | undefined>;
  onerror(error: Error): void;
  maxBytes: number;
}

/** A request whose answer comes on an SSE stream. */
export interface FollowedRequest {
  cancellation: Signal;
  lastEventId?: string;
  readonly answered: boolean;
  /** The server ended the stream before the answer, to be resumed (see SendOptions.onpause). */
  onpause?: (retryMs: number | undefined, resume?: () => void) => void;
}

/**
 * The SSE streams of a Streamable HTTP connection that are reopened when they drop, as the SDK's transport reopens
 * them: a request's stream (resumed with GET and Last-Event-ID when it ends before the answer, once it named an
 * event), and the standalone stream. The server's `retry:` sets every delay after it; without one the delay grows
 * from 1 s by half each time, up to 30 s. Unlike the SDK's, which starts counting again at every stream that ends,
 * a request's stream is given up after `maxRetries` reopenings in a row that bring nothing new.
 */
export class ReopenedStreams {
  /** The server's `retry:`. */
  private serverRetryMs?: number;

  constructor(
    private readonly source: StreamSource,
    private readonly options: ReconnectionOptions,
  ) {}

  /** Reads a request's stream, reopened as needed, until its answer came; throws when it cannot come. */
  async follow(request: FollowedRequest, first: IncomingMessage, frame: (frame: Frame) => void): Promise<void> {
    let res: IncomingMessage | undefined = first;
    let fruitless = 0;
    while (res) {
      let progressed = false;
      await this.read(
        res,
        (read) => {
          progressed = true;
          frame(read);
        },
        (id) => {
          // A server that sends its last event again brings nothing new.
          if (id !== request.lastEventId) progressed = true;
          request.lastEventId = id;
        },
      );
      if (request.answered || request.cancellation.aborted) return;
      // Only a stream that named an event can be resumed (the SDK's "priming event").
      if (request.lastEventId === undefined) {
        throw new Error('the upstream ended the stream of a request before answering it');
      }
      fruitless = progressed ? 0 : fruitless + 1;
      // Reopened after the delay, or sooner when the relay's own client comes back for it (SendOptions.onpause).
      let resume!: () => void;
      const resumed = new Promise<void>((done) => (resume = done));
      request.onpause?.(this.serverRetryMs, resume);
      res = await this.reopen(request, fruitless, resumed);
    }
  }

  /** Reads the standalone stream, and reopens it when it drops, as long as reopening works. */
  async listen(first: IncomingMessage, signal: AbortSignal, frame: (frame: Frame) => void): Promise<void> {
    let res: IncomingMessage | undefined = first;
    let lastEventId: string | undefined;
    while (res && !signal.aborted) {
      await this.read(res, frame, (id) => (lastEventId = id));
      res = undefined;
      for (let attempt = 0; !res && !signal.aborted; attempt++) {
        if (attempt >= this.options.maxRetries) {
          this.source.onerror(new Error(`Maximum reconnection attempts (${this.options.maxRetries}) exceeded.`));
          return;
        }
        try {
          await delay(this.delay(attempt), signal);
          res = await this.source.open(lastEventId, signal);
          if (!res) return;
        } catch (error) {
          if (signal.aborted) return;
          this.source.onerror(new Error(`Failed to reconnect SSE stream: ${(error as Error).message}`));
        }
      }
    }
  }

  /** A request's stream again, after the delay; undefined when the session is gone. */
  private async reopen(
    request: FollowedRequest,
    fruitless: number,
    resumed: Promise<void>,
  ): Promise<IncomingMessage | undefined> {
    for (let attempt = fruitless; ; attempt++) {
      if (attempt >= this.options.maxRetries) {
        throw new Error(`Maximum reconnection attempts (${this.options.maxRetries}) exceeded.`);
      }
      const waited = delay(this.delay(attempt), request.cancellation);
      await (attempt === fruitless ? Promise.race([waited, resumed]) : waited);
      let res: IncomingMessage | undefined;
      try {
        res = await this.source.open(request.lastEventId, request.cancellation);
      } catch (error) {
        if (request.cancellation.aborted) throw error;
        this.source.onerror(new Error(`Failed to reconnect SSE stream: ${(error as Error).message}`));
        continue;
      }
      if (res || request.cancellation.aborted) return res;
      throw new Error('the upstream does not resume the stream of a request (HTTP 405)');
    }
  }

  private read(res: IncomingMessage, frame: (frame: Frame) => void, id: (id: string) => void): Promise<void> {
    return readEventStream(
      res,
      { frame, id, retry: (ms) => (this.serverRetryMs = ms), onerror: (error) => this.source.onerror(error) },
      this.source.maxBytes,
    );
  }

  private delay(attempt: number): number {
    const { initialDelayMs, growFactor, maxDelayMs } = this.options;
    return this.serverRetryMs ?? Math.min(initialDelayMs * growFactor ** attempt, maxDelayMs);
  }
}
