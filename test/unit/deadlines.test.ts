// The timeouts of a connection's requests on one timer (src/rpc/deadlines.ts): each expires at its own time, whatever
// order they were set in; progress restarts one; an answered one never expires; and a connection whose requests are
// all answered does not keep the process alive until a deadline that no longer exists.
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Deadlines } from '../../src/rpc/deadlines.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records when each named deadline expires, in ms since the start. */
function recorder() {
  const started = performance.now();
  const expired: Array<[string, number]> = [];
  return { expired, expire: (name: string) => () => expired.push([name, performance.now() - started]) };
}

describe('Deadlines', () => {
  test('each deadline expires at its own time, whatever order they were set in', async () => {
    const deadlines = new Deadlines();
    const { expired, expire } = recorder();
    deadlines.add(150, expire('late'));
    deadlines.add(30, expire('early'));
    deadlines.add(80, expire('middle'));
    await sleep(250);
    expect(expired.map(([name]) => name)).toEqual(['early', 'middle', 'late']);
    const at = Object.fromEntries(expired);
    expect(at.early).toBeGreaterThanOrEqual(29);
    expect(at.middle).toBeGreaterThanOrEqual(79);
    expect(at.late).toBeGreaterThanOrEqual(149);
  });

  test('a forgotten deadline never expires; the others still do', async () => {
    const deadlines = new Deadlines();
    const { expired, expire } = recorder();
    const first = deadlines.add(30, expire('answered'));
    deadlines.add(60, expire('waiting'));
    deadlines.forget(first);
    await sleep(120);
    expect(expired.map(([name]) => name)).toEqual(['waiting']);
  });

  test('refresh starts a deadline again from now (a request that reported progress)', async () => {
    const deadlines = new Deadlines();
    const { expired, expire } = recorder();
    const deadline = deadlines.add(60, expire('slow'));
    await sleep(40);
    deadlines.refresh(deadline);
    await sleep(40);
    expect(expired).toEqual([]);
    await sleep(60);
    expect(expired.map(([name]) => name)).toEqual(['slow']);
    expect(expired[0]![1]).toBeGreaterThanOrEqual(99);
  });

  test('clear drops every deadline', async () => {
    const deadlines = new Deadlines();
    const { expired, expire } = recorder();
    deadlines.add(20, expire('a'));
    deadlines.add(40, expire('b'));
    deadlines.clear();
    await sleep(80);
    expect(expired).toEqual([]);
  });

  test('with every request answered the process can end at once; with one waiting it waits for its deadline', () => {
    const module = fileURLToPath(new URL('../../src/rpc/deadlines.ts', import.meta.url));
    const run = (script: string) => {
      const started = Date.now();
      const child = spawnSync(process.execPath, ['--experimental-strip-types', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      expect(child.stderr.replace(/.*ExperimentalWarning.*\n|.*--trace-warnings.*\n/g, '')).toBe('');
      return { ms: Date.now() - started, out: child.stdout };
    };
    const load = `const { Deadlines } = await import(${JSON.stringify(module)});`;
    const answered = run(`${load} const d = new Deadlines(); d.forget(d.add(5000, () => console.log('expired')));`);
    expect(answered.out).toBe('');
    expect(answered.ms).toBeLessThan(4000);
    const waiting = run(`${load} const d = new Deadlines(); d.add(300, () => console.log('expired'));`);
    expect(waiting.out).toBe('expired\n');
  });
});
