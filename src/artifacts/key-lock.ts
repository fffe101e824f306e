/**
 * Runs tasks for the same key one after another, tasks for different keys freely. A failed task does
 * not block the ones queued behind it.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Whether any task for `key` is running or queued. */
  busy(key: string): boolean {
    return this.tails.has(key);
  }
}
