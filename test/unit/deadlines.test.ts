import { Deadlines } from '../../src/upstreams/deadlines.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the time since `since` when `fire` is called. */
function firing(since: number): { fire: () => void; fired: Promise<number>; count: () => number } {
  let calls = 0;
  let resolve!: (elapsed: number) => void;
  const fired = new Promise<number>((r) => (resolve = r));
  return {
    fire: () => {
      calls++;
      resolve(performance.now() - since);
    },
    fired,
    count: () => calls,
  };
}

describe('Deadlines: many deadlines of one length on one timer', () => {
  test('a deadline runs once, never before its length has passed', async () => {
    const deadlines = new Deadlines(60);
    const first = firing(performance.now());
    deadlines.add(first.fire);
    expect(await first.fired).toBeGreaterThanOrEqual(60);
    await sleep(80);
    expect(first.count()).toBe(1);
  });

  test('a cleared deadline never runs; the others still do', async () => {
    const deadlines = new Deadlines(40);
    const cleared = firing(performance.now());
    const kept = firing(performance.now());
    deadlines.clear(deadlines.add(cleared.fire));
    deadlines.add(kept.fire);
    await kept.fired;
    await sleep(60);
    expect(cleared.count()).toBe(0);
    expect(kept.count()).toBe(1);
  });

  test('refresh starts the length over from now (progress), and keeps the due order', async () => {
    const deadlines = new Deadlines(80);
    const start = performance.now();
    const refreshed = firing(start);
    const other = firing(start);
    const first = deadlines.add(refreshed.fire);
    deadlines.add(other.fire);
    await sleep(50);
    // From the moment of the refresh: a timer may wake a fraction of a millisecond before the 50 ms are up.
    const refreshedAt = performance.now() - start;
    deadlines.refresh(first);
    const otherAfter = await other.fired;
    expect(otherAfter).toBeGreaterThanOrEqual(80);
    expect(refreshed.count()).toBe(0);
    expect(await refreshed.fired).toBeGreaterThanOrEqual(refreshedAt + 80);
  });

  test('deadlines fire in the order they fall due, each once, and the timer goes once none is pending', async () => {
    const deadlines = new Deadlines(30);
    const order: number[] = [];
    for (let i = 0; i < 5; i++) {
      deadlines.add(() => order.push(i));
      await sleep(5);
    }
    await sleep(80);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect((deadlines as unknown as { timer?: unknown }).timer).toBeUndefined();
  });

  test('a refresh or clear of a deadline that already ran changes nothing', async () => {
    const deadlines = new Deadlines(20);
    const once = firing(performance.now());
    const deadline = deadlines.add(once.fire);
    await once.fired;
    deadlines.refresh(deadline);
    deadlines.clear(deadline);
    await sleep(50);
    expect(once.count()).toBe(1);
  });
});
