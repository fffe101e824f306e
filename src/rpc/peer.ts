import { Frame, type Id } from '../wire/frame.js';
import { isExactNumber } from '../wire/json.js';
import type { FrameContext, SendOptions, Wire } from '../wire/wire.js';
import { Deadlines, type Deadline } from './deadlines.js';
import { CancelledError, ConnectionClosedError, TimeoutError } from './errors.js';

export { TimeoutError };

export interface PeerHandlers {
  request(frame: Frame, context?: FrameContext): void;
  notification(frame: Frame, context?: FrameContext): void;
  /** The wire closed: every request this side sent has been failed already. */
  closed(): void;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Progress of this request: the request goes out with a progress token of ours, and its progress comes here. */
  onprogress?: (params: Record<string, unknown>) => void;
  /** The request is cancelled after this long without an answer or progress; it then rejects with a TimeoutError. */
  timeoutMs?: number;
  send?: SendOptions;
  /** An id of the caller's choosing, instead of the next number. */
  id?: Id;
}

interface Pending {
  resolve(frame: Frame): void;
  reject(error: Error): void;
}

/**
 * One side of a JSON-RPC connection over a wire: the ids of the requests this side sends and the answers that come
 * back for them, the progress tokens of those requests, cancellation and timeouts. Everything the peer sends that
 * is not an answer to one of them goes to the handlers, as the frame it came as. Answers are handed over as frames
 * too, error or result, untouched: what to make of them is the caller's business.
 */
export class Peer {
  private nextId = 0;
  private nextToken = 0;
  private readonly pending = new Map<unknown, Pending>();
  private readonly progress = new Map<string, (params: Record<string, unknown>) => void>();
  private readonly deadlines = new Deadlines();
  private ended = false;
  /** Answered requests' `letGo`: their deadline and abort listener, still to be let go (tidy). */
  private untidy: Array<() => void> = [];

  constructor(
    readonly wire: Wire,
    private readonly handlers: PeerHandlers,
    /** Progress tokens of this side are `<prefix>-<n>`: unique on the connection, and telling whose they are. */
    private readonly tokenPrefix: string,
  ) {
    wire.onframe = (frame, context) => this.received(frame, context);
    wire.onclose = () => this.end();
  }

  get isClosed(): boolean {
    return this.ended;
  }

  /**
   * Sends `frame` as a request of this side (its id replaced by one of ours) and resolves with the answer frame,
   * result or error alike. Rejects with CancelledError when `signal` aborts (the peer is told), TimeoutError, or
   * ConnectionClosedError.
   */
  request(frame: Frame, options: RequestOptions = {}): Promise<Frame> {
    if (this.ended) return Promise.reject(new ConnectionClosedError());
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new CancelledError(signal.reason));
    const id = options.id ?? ++this.nextId;
    let outgoing = frame.with(['id'], id);
    let token: string | undefined;
    if (options.onprogress) {
      token = `${this.tokenPrefix}-${++this.nextToken}`;
      const meta = outgoing.params._meta;
      const base = meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? meta : {};
      outgoing = outgoing.with(['params', '_meta'], { ...base, progressToken: token });
    }
    return new Promise<Frame>((resolve, reject) => {
      let deadline: Deadline | undefined;
      // No longer pending: a timeout or an abort from now on finds nothing to cancel.
      const forget = () => {
        this.pending.delete(key);
        if (token !== undefined) this.progress.delete(token);
      };
      const letGo = () => {
        if (deadline) this.deadlines.forget(deadline);
        signal?.removeEventListener('abort', onAbort);
      };
      const settle = () => {
        forget();
        letGo();
      };
      // The error is made only for a request still pending: an abort after the answer (its listener is let go a turn
      // later, see tidy) would capture a stack trace for nothing.
      const cancel = (reason: unknown, error: () => Error) => {
        if (!this.pending.has(key)) return;
        settle();
        const why = typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : undefined;
        void this.notify(
          Frame.notification('notifications/cancelled', {
            requestId: id,
            ...(why !== undefined ? { reason: why } : {}),
          }),
        ).catch(() => undefined);
        reject(error());
      };
      const onAbort = () => cancel(signal?.reason, () => new CancelledError(signal?.reason));
      const key = keyOf(id);
      this.pending.set(key, {
        resolve: (answer) => {
          // Answered: forgotten at once; the timer and the listener are let go once this turn has written the
          // answer on (see tidy).
          forget();
          resolve(answer);
          if (deadline || signal) this.tidy(letGo);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      // Written first: the bookkeeping below is done while the request travels, not before it leaves.
      this.wire.send(outgoing, options.send).catch((error: unknown) => {
        this.pending.get(key)?.reject(new ConnectionClosedError(`could not send ${frame.method}: ${String(error)}`));
      });
      // An in-process peer may have answered already.
      if (!this.pending.has(key)) return;
      const ms = options.timeoutMs;
      if (ms !== undefined)
        deadline = this.deadlines.add(ms, () => cancel(`timed out after ${ms} ms`, () => new TimeoutError(ms)));
      if (token !== undefined) {
        const onprogress = options.onprogress!;
        const live = deadline;
        this.progress.set(token, (params) => {
          if (live) this.deadlines.refresh(live);
          onprogress(params);
        });
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Forgets an answered request's deadline and abort listener after this turn of the event loop (setImmediate runs
   * once the turn's I/O callbacks and their promise jobs are done): the answer goes on through the chain and out on
   * the other wire first. Work before that write is latency the client waits for; work after it is done while the
   * other side reads (docs/performance.md, "Work before the write"). Batched: one immediate for the turn's answers.
   */
  private tidy(letGo: () => void): void {
    this.untidy.push(letGo);
    if (this.untidy.length === 1) setImmediate(() => this.tidyUp());
  }

  private tidyUp(): void {
    const done = this.untidy;
    this.untidy = [];
    for (const letGo of done) letGo();
  }

  notify(frame: Frame, options?: SendOptions): Promise<void> {
    if (this.ended) return Promise.resolve();
    return this.wire.send(frame, options);
  }

  /** Answers the peer's request `id` with `answer` (a result or error frame; its own id is replaced). */
  answer(id: Id, answer: Frame, options?: SendOptions): Promise<void> {
    if (this.ended) return Promise.resolve();
    const framed = answer.id === id ? answer : answer.with(['id'], id);
    return this.wire.send(framed, options);
  }

  /** Ends the connection: requests this side sent fail, the wire closes. */
  async close(): Promise<void> {
    this.end();
    await this.wire.close().catch(() => undefined);
  }

  private received(frame: Frame, context?: FrameContext): void {
    switch (frame.kind) {
      case 'response': {
        const pending = this.pending.get(keyOf(frame.id));
        // An answer nobody waits for any more (cancelled, timed out, a probe given up on) is dropped quietly.
        if (pending) pending.resolve(frame);
        else frame.blobs.dispose();
        return;
      }
      case 'notification': {
        if (frame.method === 'notifications/progress') {
          const token = frame.params.progressToken;
          const sink = typeof token === 'string' ? this.progress.get(token) : undefined;
          if (sink) return sink(frame.params);
        }
        return this.handlers.notification(frame, context);
      }
      case 'request':
        return this.handlers.request(frame, context);
      default:
    }
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.progress.clear();
    this.deadlines.clear();
    for (const request of pending) request.reject(new ConnectionClosedError());
    this.handlers.closed();
  }
}

/** A map key for an id: 1 and "1" are different ids; a number kept as text is its text. */
export function keyOf(id: Id | null | undefined): unknown {
  if (isExactNumber(id)) return `#${id.rawJSON}`;
  if (typeof id === 'string') return `"${id}`;
  return id;
}
