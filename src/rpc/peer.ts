import { Frame, type Id } from '../wire/frame.js';
import { isExactNumber } from '../wire/json.js';
import type { FrameContext, SendOptions, Wire } from '../wire/wire.js';
import { onAbort, type Signal } from './cancellation.js';
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
  signal?: Signal;
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
      let stopListening: (() => void) | undefined;
      // No longer pending: a timeout or an abort from now on finds nothing to cancel.
      const settle = () => {
        this.pending.delete(key);
        if (token !== undefined) this.progress.delete(token);
        if (deadline) this.deadlines.forget(deadline);
        stopListening?.();
      };
      // The error is made only for a request still pending.
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
      const key = keyOf(id);
      this.pending.set(key, {
        resolve: (answer) => {
          // The deadline and the listener let go before the answer goes on: with a Cancellation they are a Set entry
          // each, less than a turn's deferral of them cost (docs/performance.md, "One listener less").
          settle();
          resolve(answer);
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
      if (signal) stopListening = onAbort(signal, () => cancel(signal.reason, () => new CancelledError(signal.reason)));
    });
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
