import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterReads, handedOver, whenReadsAllow } from '../../src/upstreams/after-reads.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('afterReads: tasks run once the loop has handled this turn, in order', () => {
  test('runs after the microtasks queued before and after it, in the order given', async () => {
    const order: string[] = [];
    void Promise.resolve().then(() => order.push('microtask before'));
    afterReads(() => order.push('task 1'));
    afterReads(() => order.push('task 2'));
    void Promise.resolve().then(() => order.push('microtask after'));
    expect(order).toEqual([]);
    await turn();
    expect(order).toEqual(['microtask before', 'microtask after', 'task 1', 'task 2']);
  });

  test('a task queued while the queue runs runs in a later turn, and still runs', async () => {
    const order: string[] = [];
    afterReads(() => {
      order.push('outer');
      afterReads(() => order.push('inner'));
    });
    await turn();
    expect(order).toEqual(['outer']);
    await turn();
    expect(order).toEqual(['outer', 'inner']);
  });

  test('a task that throws fails as an uncaught exception, and the tasks after it still run', () => {
    // In a process of its own: the test runner takes an uncaught exception for its own failure.
    const script = [
      `import { afterReads } from ${JSON.stringify(pathToFileURL(resolve('dist/upstreams/after-reads.js')).href)};`,
      `process.on('uncaughtException', (error) => console.log('uncaught: ' + error.message));`,
      `afterReads(() => { throw new Error('task failed'); });`,
      `afterReads(() => console.log('after the failure'));`,
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('after the failure\nuncaught: task failed\n');
  });
});

describe('whenReadsAllow: an answer goes at once unless something read before it may still be on its way', () => {
  test('nothing handed over, nothing queued: the task runs at once', async () => {
    await turn();
    const order: string[] = [];
    whenReadsAllow(() => order.push('answer'));
    order.push('after the call');
    expect(order).toEqual(['answer', 'after the call']);
  });

  test('after a message was handed over this turn, the task waits for its microtasks, until the next check phase', async () => {
    await turn();
    const order: string[] = [];
    handedOver();
    // The SDK's handler of the message handed over: a chain of microtasks that ends in a write to the client.
    void Promise.resolve()
      .then(() => undefined)
      .then(() => order.push('log message'));
    whenReadsAllow(() => order.push('answer'));
    expect(order).toEqual([]);
    await turn();
    expect(order).toEqual(['log message', 'answer']);
    // The turn is over: the next answer goes at once again.
    whenReadsAllow(() => order.push('next answer'));
    expect(order).toEqual(['log message', 'answer', 'next answer']);
  });

  test('an answer behind one already queued waits its turn, in order', async () => {
    await turn();
    const order: string[] = [];
    afterReads(() => order.push('queued answer'));
    whenReadsAllow(() => order.push('answer'));
    expect(order).toEqual([]);
    await turn();
    expect(order).toEqual(['queued answer', 'answer']);
  });
});
