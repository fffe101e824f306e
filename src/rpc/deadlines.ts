/** One request's deadline (Deadlines.add). */
export interface Deadline {
  /** When it expires (performance.now() milliseconds). */
  at: number;
  readonly ms: number;
  readonly expire: () => void;
}

/**
 * The timeouts of a connection's requests in flight, on one timer: a timer per request costs an allocation, an
 * insertion and a removal in Node's timer lists on every request, most of which are answered long before. The timer
 * is set for the earliest deadline and, when it fires, expires what is due and is set again for the next. It holds
 * the process open only while a request waits (as a timer per request would).
 */
export class Deadlines {
  private readonly live = new Set<Deadline>();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires; Infinity when none is set. */
  private timerAt = Infinity;

  /** A deadline `ms` from now: `expire` is called then, unless it is forgotten or refreshed before. */
  add(ms: number, expire: () => void): Deadline {
    const deadline: Deadline = { at: performance.now() + ms, ms, expire };
    this.live.add(deadline);
    if (deadline.at < this.timerAt) this.arm(deadline.at);
    else if (this.live.size === 1) this.timer?.ref();
    return deadline;
  }

  /** Starts the deadline's time again (a request that reported progress). */
  refresh(deadline: Deadline): void {
    if (this.live.has(deadline)) deadline.at = performance.now() + deadline.ms;
  }

  /** The request was answered or given up: it has no deadline any more. */
  forget(deadline: Deadline): void {
    this.live.delete(deadline);
    // Set for a later deadline that may no longer exist: it no longer keeps the process alive meanwhile.
    if (this.live.size === 0) this.timer?.unref();
  }

  clear(): void {
    this.live.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.ceil(at - performance.now())));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    const due: Deadline[] = [];
    let next = Infinity;
    for (const deadline of this.live) {
      if (deadline.at <= now) due.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    for (const deadline of due) this.live.delete(deadline);
    if (next !== Infinity) this.arm(next);
    for (const deadline of due) deadline.expire();
  }
}
