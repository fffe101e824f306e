import { spawn, type ChildProcess } from 'node:child_process';
import { EVERYTHING_ENTRY, NODE, startEverythingHttp } from '../helpers/fixtures.js';
import { freePort } from '../helpers/ports.js';
import { NO_OFFLOAD, startProxy, testConfig } from '../helpers/proxy.js';
import { connectLinear, stopAllCli } from '../helpers/cli.js';
import { textOf } from '../helpers/results.js';

/** server-everything's legacy SSE transport (GET /sse, POST /message) on a free port. */
async function startEverythingSse(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(NODE, [EVERYTHING_ENTRY, 'sse'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('running on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything sse exited with ${code}: ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}/sse`, child };
}

describe('remote upstreams', () => {
  test('transport auto falls back to legacy SSE when Streamable HTTP is refused', async () => {
    const sse = await startEverythingSse();
    const proxy = await startProxy(testConfig([{ name: 'legacy', url: sse.url }], NO_OFFLOAD));
    try {
      expect(proxy.gateway.upstreams[0].state).toBe('up');
      expect(textOf(await proxy.client.callTool({ name: 'echo', arguments: { message: 'over sse' } }))).toBe(
        'Echo: over sse',
      );
    } finally {
      await proxy.close();
      sse.child.kill('SIGKILL');
    }
  });

  test('transport sse alone, and a clear error when a remote server cannot be reached', async () => {
    const sse = await startEverythingSse();
    const dead = `http://127.0.0.1:${await freePort()}/mcp`;
    const proxy = await startProxy(
      testConfig(
        [
          { name: 'legacy', url: sse.url, transport: 'sse' },
          { name: 'nowhere', url: dead, restart: { maxRetries: 1, initialDelayMs: 10_000, maxDelayMs: 10_000 } },
        ],
        NO_OFFLOAD,
      ),
    );
    try {
      expect(textOf(await proxy.client.callTool({ name: 'legacy__echo', arguments: { message: 'x' } }))).toBe(
        'Echo: x',
      );
      const nowhere = proxy.gateway.upstreams[1];
      expect(nowhere.state).toBe('down');
      expect(nowhere.lastError).toMatch(
        /could not connect to http:\/\/127\.0\.0\.1:\d+\/mcp: Streamable HTTP failed .* and SSE failed/,
      );
    } finally {
      await proxy.close();
      sse.child.kill('SIGKILL');
    }
  });

  test('mcp-offload --url wraps a remote Streamable HTTP server over stdio', async () => {
    const server = await startEverythingHttp();
    try {
      const proxy = await connectLinear(['--log-level', 'warn', '--url', server.url]);
      expect(textOf(await proxy.client.callTool({ name: 'echo', arguments: { message: 'via --url' } }))).toBe(
        'Echo: via --url',
      );
      expect(proxy.client.getServerVersion()?.name).toBe('mcp-servers/everything');
      await proxy.close();
    } finally {
      await stopAllCli();
      await server.close();
    }
  });
});
