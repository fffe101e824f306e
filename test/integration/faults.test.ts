import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp } from '../../src/http/server.js';
import { silentLogger } from '../../src/logger.js';
import { FIXTURES, NODE, pidAlive, waitFor } from '../helpers/fixtures.js';
import { NO_OFFLOAD, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { textOf } from '../helpers/results.js';
import { filesIn } from '../helpers/pipeline.js';

describe('faults', () => {
  let proxy: ProxyUnderTest;
  afterEach(() => proxy?.close());

  test('a hung upstream: the call times out, is answered, and the upstream is restarted', async () => {
    proxy = await startProxy(
      testConfig([{ name: 'slow', command: NODE, args: [FIXTURES.slow], timeoutMs: 500 }], NO_OFFLOAD),
    );
    const before = Number(textOf(await proxy.client.callTool({ name: 'pid' })));
    await expect(proxy.client.callTool({ name: 'freeze' })).rejects.toThrow(
      /upstream "slow" did not answer tools\/call within 500 ms/,
    );
    const upstream = proxy.gateway.upstreams[0];
    expect(await upstream.lastLivenessCheck).toBe('hung');
    await waitFor(
      () => upstream.restarts === 1 && upstream.state === 'up',
      10_000,
      50,
      'the restart of the hung upstream',
    );
    expect(pidAlive(before)).toBe(false);
    expect(Number(textOf(await proxy.client.callTool({ name: 'pid' })))).not.toBe(before);
  });

  test('a slow upstream that still answers ping is not restarted', async () => {
    proxy = await startProxy(
      testConfig([{ name: 'slow', command: NODE, args: [FIXTURES.slow], timeoutMs: 300 }], NO_OFFLOAD),
    );
    await expect(proxy.client.callTool({ name: 'slow', arguments: { ms: 2000 } })).rejects.toThrow(/within 300 ms/);
    const upstream = proxy.gateway.upstreams[0];
    expect(await upstream.lastLivenessCheck).toBe('alive');
    expect(upstream.restarts).toBe(0);
    expect(upstream.state).toBe('up');
  });

  test('an upstream killed while sending a 50 MB result: a clear error, no partial artifact, no crash', async () => {
    const config = testConfig([{ name: 'big', command: NODE, args: [FIXTURES.bigResult] }]);
    proxy = await startProxy(config);
    await expect(proxy.client.callTool({ name: 'die-mid-image', arguments: { mb: 50 } })).rejects.toThrow(
      /upstream "big" failed while handling tools\/call: the process exited \(signal SIGKILL\)/,
    );
    expect(await filesIn(config.artifacts.dir!)).toEqual([]);
    await waitFor(() => proxy.gateway.upstreams[0].state === 'up', 10_000, 50, 'the restart');
    const ok = await proxy.client.callTool({ name: 'big-image', arguments: { mb: 2 } });
    expect(ok.content).toContainEqual(expect.objectContaining({ type: 'resource_link' }));
    expect(await filesIn(config.artifacts.dir!)).toHaveLength(1);
  });
});

describe('load', () => {
  test('1000 calls from 10 concurrent HTTP clients: every response matches its request', async () => {
    const gateway = new Gateway(
      testConfig([{ name: 'basic', command: NODE, args: [FIXTURES.basic, '--tools', 'echo'] }], NO_OFFLOAD),
      silentLogger,
    );
    await gateway.start();
    const http = await serveHttp(gateway, { host: '127.0.0.1', port: 0 }, silentLogger);
    const clients: Client[] = [];
    try {
      for (let c = 0; c < 10; c++) {
        const client = new Client({ name: `load-${c}`, version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
        clients.push(client);
      }
      const mismatches: string[] = [];
      await Promise.all(
        clients.map(async (client, c) => {
          for (let batch = 0; batch < 10; batch++) {
            await Promise.all(
              Array.from({ length: 10 }, async (_, i) => {
                const message = `client ${c} call ${batch * 10 + i}`;
                const answer = textOf(await client.callTool({ name: 'echo', arguments: { message } }));
                if (answer !== message) mismatches.push(`${message} -> ${answer}`);
              }),
            );
          }
        }),
      );
      expect(mismatches).toEqual([]);
      expect(gateway.sessionCount).toBe(10);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await http.close();
      await gateway.stop();
    }
  }, 120_000); // a budget for a loaded 2-core machine, not a timing assertion
});

describe('memory', () => {
  test('after 20 calls of 10 MB images, memory returns to its baseline', () => {
    const probe = fileURLToPath(new URL('../helpers/leak-probe.mjs', import.meta.url));
    const run = spawnSync(NODE, ['--expose-gc', probe, FIXTURES.bigResult, '20', '10'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status).toBe(0);
    const samples = JSON.parse(run.stdout.trim().split('\n').pop()!) as { heap: number; external: number }[];
    expect(samples).toHaveLength(20);
    const used = samples.map((s) => s.heap + s.external);
    const baseline = used[0];
    // Each call moves 13 MB of base64 through the proxy; a leak of one payload per call would add 260 MB.
    expect(Math.max(...used.slice(1))).toBeLessThan(baseline + 30 * 1024 * 1024);
  }, 150_000);
});
