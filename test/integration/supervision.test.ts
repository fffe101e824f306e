import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { FIXTURES, NODE, pidAlive, waitFor } from '../helpers/fixtures.js';
import { listAll } from '../helpers/lists.js';
import { NO_OFFLOAD, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { textOf } from '../helpers/results.js';

const crash = (extra: Record<string, unknown> = {}) => ({
  name: 'crashy',
  command: NODE,
  args: [FIXTURES.crash],
  ...extra,
});
const slow = (extra: Record<string, unknown> = {}) => ({
  name: 'slow',
  command: NODE,
  args: [FIXTURES.slow],
  ...extra,
});

describe('an upstream that crashes', () => {
  let proxy: ProxyUnderTest;
  afterEach(() => proxy?.close());

  test('a call in flight gets an error naming the server, and the upstream is restarted', async () => {
    proxy = await startProxy(testConfig([crash()], NO_OFFLOAD));
    const before = Number(textOf(await proxy.client.callTool({ name: 'pid' })));
    await expect(proxy.client.callTool({ name: 'crash' })).rejects.toThrow(
      /upstream "crashy" failed while handling tools\/call: the process exited \(code 3\).*crashing.*being restarted/,
    );
    const upstream = proxy.gateway.upstreams[0];
    await waitFor(() => upstream.state === 'up', 5000, 20, 'the restart');
    expect(upstream.restarts).toBe(1);
    const after = Number(textOf(await proxy.client.callTool({ name: 'pid' })));
    expect(after).not.toBe(before);
    expect(pidAlive(before)).toBe(false);
    expect(textOf(await proxy.client.callTool({ name: 'ok' }))).toBe('ok');
  });

  test('with whenDown: error, a call while it is down fails at once with the reason', async () => {
    proxy = await startProxy(
      testConfig([crash({ restart: { maxRetries: 0, initialDelayMs: 2000, maxDelayMs: 2000 } })], NO_OFFLOAD),
    );
    await proxy.client.callTool({ name: 'crash-later', arguments: { ms: 10 } });
    await waitFor(() => proxy.gateway.upstreams[0].state === 'down', 3000, 10, 'the crash');
    await expect(proxy.client.callTool({ name: 'ok' })).rejects.toThrow(
      /upstream "crashy" is not available \(the process exited \(code 3\).*\); it is being restarted/,
    );
  });

  test('with whenDown: wait, a call while it is down waits for the restart', async () => {
    proxy = await startProxy(
      testConfig(
        [crash({ whenDown: 'wait', restart: { maxRetries: 0, initialDelayMs: 300, maxDelayMs: 300 } })],
        NO_OFFLOAD,
      ),
    );
    await proxy.client.callTool({ name: 'crash-later', arguments: { ms: 10 } });
    await waitFor(() => proxy.gateway.upstreams[0].state === 'down', 3000, 10, 'the crash');
    expect(textOf(await proxy.client.callTool({ name: 'ok' }))).toBe('ok');
  });

  test('after maxRetries failed restarts it is given up and its tools leave the list', async () => {
    proxy = await startProxy(
      testConfig(
        [
          { name: 'healthy', command: NODE, args: [FIXTURES.basic, '--tools', 'echo'] },
          crash({ env: { CRASH_ON_START: '1' }, restart: { maxRetries: 2, initialDelayMs: 50, maxDelayMs: 50 } }),
        ],
        NO_OFFLOAD,
      ),
    );
    const names = ((await listAll(proxy.client, 'tools')) as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(['healthy__echo']);
    const crashy = proxy.gateway.upstreams[1];
    // Each start that dies before answering is tried once more without the era probe (a Rust SDK server exits on it).
    await waitFor(() => crashy.state === 'failed', 15000, 20, 'giving up');
    await expect(proxy.client.callTool({ name: 'crashy__ok' })).rejects.toThrow(/Tool crashy__ok not found/);
    expect(textOf(await proxy.client.callTool({ name: 'healthy__echo', arguments: { message: 'still here' } }))).toBe(
      'still here',
    );
  });

  test('an upstream that comes up after startup joins the catalog and the client is told', async () => {
    proxy = await startProxy(
      testConfig([{ name: 'late', command: NODE, args: [FIXTURES.basic, '--tools', 'echo'] }, slow()], {
        ...NO_OFFLOAD,
        gateway: { startupTimeoutMs: 0 },
      }),
    );
    let changes = 0;
    proxy.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    await waitFor(() => proxy.gateway.upstreams.every((u) => u.state === 'up'), 10_000, 20, 'both upstreams');
    await waitFor(
      async () => {
        const names = ((await listAll(proxy.client, 'tools')) as { name: string }[]).map((t) => t.name);
        return names.includes('late__echo') && names.includes('slow__slow');
      },
      3000,
      50,
      'the late tools',
    );
    expect(changes).toBeGreaterThanOrEqual(1);
  });
});

describe('a noisy upstream', () => {
  test('junk on its stdout is skipped and calls still work', async () => {
    const proxy = await startProxy(testConfig([{ name: 'noisy', command: NODE, args: [FIXTURES.noisy] }], NO_OFFLOAD));
    try {
      for (let i = 0; i < 5; i++) {
        expect(textOf(await proxy.client.callTool({ name: 'echo', arguments: { message: `m${i}` } }))).toContain(
          `m${i}`,
        );
      }
    } finally {
      await proxy.close();
    }
  });
});

describe('slow upstreams, timeouts and cancellation', () => {
  let proxy: ProxyUnderTest;
  afterEach(() => proxy?.close());

  test('a call past timeoutMs gets a timeout error and the upstream is told to cancel', async () => {
    proxy = await startProxy(testConfig([slow({ timeoutMs: 300 })], NO_OFFLOAD));
    await expect(proxy.client.callTool({ name: 'hang' })).rejects.toThrow(
      /upstream "slow" did not answer tools\/call within 300 ms/,
    );
    const cancelled = await waitFor(
      async () => {
        const result = await proxy.client.callTool({ name: 'cancellations' });
        const list = (result.structuredContent as { cancellations: { tool: string; reason: string }[] }).cancellations;
        return list.length ? list : undefined;
      },
      3000,
      50,
      'the cancellation',
    );
    expect(cancelled).toEqual([
      expect.objectContaining({ tool: 'hang', reason: expect.stringContaining('timed out after 300 ms') }),
    ]);
  });

  test('progress restarts the timeout, so a long call that reports progress succeeds', async () => {
    proxy = await startProxy(testConfig([slow({ timeoutMs: 400 })], NO_OFFLOAD));
    const progress: number[] = [];
    const result = await proxy.client.callTool(
      { name: 'progress', arguments: { steps: 6, intervalMs: 200 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 10_000 },
    );
    expect(textOf(result)).toBe('completed 6 steps');
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('cancellation by the client reaches the upstream', async () => {
    proxy = await startProxy(testConfig([slow()], NO_OFFLOAD));
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    // The first progress report proves the upstream is working on the call.
    const call = proxy.client.callTool({ name: 'progress', arguments: { steps: 1000, intervalMs: 20 } }, undefined, {
      signal: controller.signal,
      onprogress: () => started(),
    });
    await running;
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    const cancelled = await waitFor(
      async () => {
        const result = await proxy.client.callTool({ name: 'cancellations' });
        const list = (result.structuredContent as { cancellations: { tool: string; reason: string }[] }).cancellations;
        return list.length ? list : undefined;
      },
      3000,
      50,
      'the cancellation',
    );
    expect(cancelled).toEqual([
      expect.objectContaining({ tool: 'progress', reason: expect.stringContaining('user pressed stop') }),
    ]);
  });
});

describe('an upstream whose command does not exist', () => {
  test('fails at once and is not restarted; the other servers serve', async () => {
    const basic = { name: 'good', command: NODE, args: [FIXTURES.basic] };
    const proxy = await startProxy(
      testConfig([basic, { name: 'typo', command: 'nodee', args: [FIXTURES.basic] }], NO_OFFLOAD),
    );
    try {
      const typo = proxy.gateway.upstreams.find((u) => u.name === 'typo')!;
      expect(typo.state).toBe('failed');
      expect(typo.restarts).toBe(0);
      expect(typo.lastError).toBe('command not found: nodee (did you mean "node"?)');
      expect(textOf(await proxy.client.callTool({ name: 'good__echo', arguments: { message: 'hi' } }))).toBe('hi');
      expect(typo.restarts).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
