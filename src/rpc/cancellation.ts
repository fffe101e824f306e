/**
 * The relay's own abort signal: whether a call was cancelled, and who to tell. Every relayed call is listened to for
 * cancellation on its way (by the peer that sends it upstream; for a 2026-07-28 client bridged to a 2025 server, by
 * the input bridge too) and nearly always answered long before anything cancels it. Node's AbortSignal is an
 * EventTarget: each listener added and removed validates its options and keeps a weak list, some 16,000 of the 190,000
 * instructions a relayed call cost (callgrind, docs/performance.md); here it is an entry in a Set. What takes a
 * `Signal` takes either.
 */
export class Cancellation {
  private listeners: Set<() => void> | undefined;
  private cancelled: { reason: unknown } | undefined;

  get aborted(): boolean {
    return this.cancelled !== undefined;
  }

  /** Why it was cancelled (as AbortSignal's `reason`: an AbortError when no reason was given). */
  get reason(): unknown {
    return this.cancelled?.reason;
  }

  /**
   * Calls `listener` once, when this is cancelled (not when it is already: as AbortSignal's listeners); returns what
   * stops listening.
   */
  listen(listener: () => void): () => void {
    if (this.cancelled) return noop;
    // A Set: the same function listening twice is called once, as an EventTarget's listener is.
    const listeners = (this.listeners ??= new Set());
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  cancel(reason?: unknown): void {
    if (this.cancelled) return;
    this.cancelled = { reason: reason === undefined ? AbortSignal.abort().reason : reason };
    const listeners = this.listeners;
    this.listeners = undefined;
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As an EventTarget reports a listener's error: thrown on its own (an uncaught exception), the rest still run.
        process.nextTick(() => {
          throw error;
        });
      }
    }
  }
}

/** A request's `signal` option: the relay's Cancellation, or an AbortSignal of anyone else's. */
export type Signal = AbortSignal | Cancellation;

/** Calls `listener` once when `signal` aborts; returns what stops listening. */
export function onAbort(signal: Signal, listener: () => void): () => void {
  if (signal instanceof Cancellation) return signal.listen(listener);
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

function noop(): void {}
