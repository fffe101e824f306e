// The relay's Cancellation (src/rpc/cancellation.ts): what an AbortSignal does, without an EventTarget.
import { describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Cancellation, onAbort } from '../../src/rpc/cancellation.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('Cancellation', () => {
  test('calls each listener once when cancelled, with the reason given; a listener let go is not called', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    cancellation.listen(() => heard.push(`a:${String(cancellation.reason)}`));
    const stop = cancellation.listen(() => heard.push('b'));
    const twice = () => heard.push('c');
    cancellation.listen(twice);
    cancellation.listen(twice);
    stop();
    expect(cancellation.aborted).toBe(false);
    cancellation.cancel('stop');
    cancellation.cancel('again');
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBe('stop');
    expect(heard).toEqual(['a:stop', 'c']);
  });

  test('a listener added once cancelled is not called (as on an aborted AbortSignal)', () => {
    const cancellation = new Cancellation();
    cancellation.cancel('gone');
    let called = false;
    cancellation.listen(() => (called = true))();
    cancellation.cancel('again');
    expect(called).toBe(false);
  });

  test('without a reason, the reason is the AbortError an AbortController gives', () => {
    const cancellation = new Cancellation();
    cancellation.cancel();
    const controller = new AbortController();
    controller.abort();
    expect(cancellation.reason).toBeInstanceOf(DOMException);
    expect((cancellation.reason as DOMException).name).toBe(controller.signal.reason.name);
  });

  test('a listener that throws does not keep the others from hearing; its error is thrown on its own', () => {
    // In a process of its own (the built module): jest keeps a test's uncaught exceptions to itself.
    const script = `
      import { Cancellation } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/rpc/cancellation.js')).href)};
      const cancellation = new Cancellation();
      const heard = [];
      process.on('uncaughtException', (error) => heard.push('uncaught: ' + error.message));
      cancellation.listen(() => { throw new Error('listener failed'); });
      cancellation.listen(() => heard.push('second'));
      cancellation.cancel('stop');
      heard.push('cancel returned');
      setImmediate(() => console.log(JSON.stringify(heard)));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(['second', 'cancel returned', 'uncaught: listener failed']);
  });
});

describe('onAbort', () => {
  test('listens to an AbortSignal and to a Cancellation alike, once, and lets go', () => {
    for (const make of [
      () => {
        const controller = new AbortController();
        return { signal: controller.signal, abort: () => controller.abort('x') };
      },
      () => {
        const cancellation = new Cancellation();
        return { signal: cancellation, abort: () => cancellation.cancel('x') };
      },
    ]) {
      const kept = make();
      const dropped = make();
      let heard = 0;
      let heardDropped = 0;
      onAbort(kept.signal, () => heard++);
      onAbort(dropped.signal, () => heardDropped++)();
      kept.abort();
      kept.abort();
      dropped.abort();
      expect(heard).toBe(1);
      expect(heardDropped).toBe(0);
      expect(kept.signal.reason).toBe('x');
    }
  });
});
