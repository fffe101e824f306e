/** A pending deadline: what runs when it passes. */
export interface Deadline {
  at: number;
  readonly expire: () => void;
}

/** The finest a sweep runs: a deadline of 100 ms or less still fires within about 10 ms of it. */
const MIN_SWEEP_MS = 10;
/** The coarsest: a long deadline fires within a second of it. */
const MAX_SWEEP_MS = 1000;

/**
 * Deadlines of one length (an upstream's call timeout) on one timer. A timer per call costs a timer list, a
 * priority-queue entry and a libuv re-arm when it starts and again when it is cleared, on every call of a relay
 * whose calls almost all end long before their deadline (docs/performance.md). Here a call's deadline is an entry in
 * an insertion-ordered set, and one unreferenced timer sweeps the set every tenth of the length (10 ms to 1 s)
 * while it holds anything (it stops at the first sweep that finds nothing pending, not with the last call, which
 * would start and stop it for every call again): a deadline fires up to a tenth of its length late, never early.
 *
 * All deadlines have the same length, so the set is in the order they fall due: a sweep stops at the first that has
 * not. `refresh` moves one to the end with its new time, which keeps that order.
 */
export class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer?: NodeJS.Timeout;
  private readonly sweepMs: number;

  constructor(private readonly lengthMs: number) {
    this.sweepMs = Math.min(MAX_SWEEP_MS, Math.max(MIN_SWEEP_MS, Math.floor(lengthMs / 10)));
  }

  /** A deadline `lengthMs` from now. */
  add(expire: () => void): Deadline {
    const deadline = { at: performance.now() + this.lengthMs, expire };
    this.pending.add(deadline);
    this.timer ??= setInterval(this.sweep, this.sweepMs).unref();
    return deadline;
  }

  /** The deadline starts over from now (an upstream's progress). */
  refresh(deadline: Deadline): void {
    if (!this.pending.delete(deadline)) return;
    deadline.at = performance.now() + this.lengthMs;
    this.pending.add(deadline);
  }

  /** The deadline no longer applies: it will not run. The timer stays until a sweep finds nothing pending. */
  clear(deadline: Deadline): void {
    this.pending.delete(deadline);
  }

  private readonly sweep = (): void => {
    const now = performance.now();
    for (const deadline of this.pending) {
      if (deadline.at > now) break;
      this.pending.delete(deadline);
      deadline.expire();
    }
    if (this.pending.size === 0) this.stop();
  };

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
