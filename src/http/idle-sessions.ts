/**
 * When each Streamable HTTP session was last heard from, and how many of its requests and streams are still open.
 * A client that goes away without DELETE leaves its session behind, and with it the upstream processes and
 * sessions opened for it; one silent for `idleMs` with nothing open is ended. 0 keeps sessions for the process's life.
 */
export class IdleSessions {
  private readonly seen = new Map<string, { last: number; open: number }>();
  private readonly timer?: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly expire: (sessionId: string, idleMs: number) => void,
  ) {
    if (idleMs <= 0) return;
    this.timer = setInterval(() => this.sweep(), Math.min(Math.max(idleMs / 4, 50), 60_000));
    this.timer.unref();
  }

  /** A request or stream of the session began; the function returned says it ended (calling it twice is harmless). */
  begin(sessionId: string): () => void {
    let entry = this.seen.get(sessionId);
    if (!entry) this.seen.set(sessionId, (entry = { last: Date.now(), open: 0 }));
    const current = entry;
    current.open++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      current.open--;
      current.last = Date.now();
    };
  }

  forget(sessionId: string): void {
    this.seen.delete(sessionId);
  }

  /** Ends the sessions that have nothing open and were last heard from `idleMs` or more before `now`. */
  sweep(now = Date.now()): void {
    for (const [sessionId, entry] of this.seen) {
      if (entry.open > 0 || now - entry.last < this.idleMs) continue;
      this.seen.delete(sessionId);
      this.expire(sessionId, now - entry.last);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.seen.clear();
  }
}
