/** Counts work in progress so shutdown can wait for it to finish. */
export class InFlight {
  private count = 0;
  private waiters: Array<() => void> = [];

  get size(): number {
    return this.count;
  }

  async track<T>(work: () => Promise<T>): Promise<T> {
    const end = this.begin();
    try {
      return await work();
    } finally {
      end();
    }
  }

  /** Work starts; the function it returns ends it (once). */
  begin(): () => void {
    this.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** Resolves true when nothing is in flight, or false after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.waiters.push(() => resolve(true)));
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const done = await Promise.race([idle, late]);
    clearTimeout(timer);
    return done;
  }
}
