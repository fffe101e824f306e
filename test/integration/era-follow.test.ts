// A legacy client meets a server of both eras in the legacy era, as it would directly: the proxy speaks 2026-07-28
// to the server for modern clients and opens legacy-era connections for legacy ones (one shared legacy connection to
// a command server, one per client to a remote server), so a 2025 tool that asks its client something with a
// server→client request works. A server that refuses the legacy era serves legacy clients from its modern
// connection, their questions bridged from input_required, and is not asked again.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerPool } from '../../src/upstreams/server-pool.js';
import { speaksLegacyToo } from '../../src/upstreams/era-verdicts.js';
import { NODE, startListening, waitFor } from '../helpers/fixtures.js';
import { connectAs, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { connectLinear, stopAllCli } from '../helpers/cli.js';

const MODERN = fileURLToPath(new URL('../fixtures/modern-server.mjs', import.meta.url));

/** Answers the fixture's `ask` tool (its question for a name) with `name`, and counts the questions. */
function answering(name: string): { setup: (client: Client) => void; asked: () => number } {
  let asked = 0;
  return {
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, async () => {
        asked++;
        return { action: 'accept', content: { name } };
      }),
    asked: () => asked,
  };
}

async function ask(client: Client): Promise<unknown> {
  const result = await client.callTool({ name: 'ask', arguments: {} }, CallToolResultSchema);
  return result.content;
}

/** The era the server saw a call in: a 2026-07-28 request carries the protocol version in its envelope. */
async function eraSeenBy(client: Client): Promise<'modern' | 'legacy'> {
  const result = await client.callTool({ name: 'meta_echo', arguments: {} }, CallToolResultSchema);
  const seen = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as {
    envelope: Record<string, unknown> | null;
  };
  return seen.envelope?.['io.modelcontextprotocol/protocolVersion'] === '2026-07-28' ? 'modern' : 'legacy';
}

const erasOf = (pool: ServerPool) => pool.connections.map((upstream) => upstream.era);

async function startHttp(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const { match, child } = await startListening(NODE, [MODERN, '--http', '0', ...args], /listening (\d+)/);
  return { url: `http://127.0.0.1:${match[1]}/mcp`, child };
}

const servers: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(
    servers.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  await stopAllCli();
});

describe('the built proxy wrapping a server of both eras, with a legacy client', () => {
  it.each([
    ['a server of both eras', [], 'legacy'],
    ['a server that refuses the legacy era', ['--modern-only'], 'modern'],
  ])('%s: the connection made again as the client speaks its era if the server does', async (_what, extra, era) => {
    const proxied = await connectLinear(['--', NODE, MODERN, ...extra]);
    try {
      expect(await eraSeenBy(proxied.client)).toBe(era);
      const echoed = await proxied.client.callTool({ name: 'echo', arguments: { text: 'hi' } }, CallToolResultSchema);
      expect(echoed.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    } finally {
      await proxied.close();
    }
  });
});

describe('legacy clients in front of a command server of both eras', () => {
  let proxy: ProxyUnderTest;
  const first = answering('Ada');

  beforeAll(async () => {
    proxy = await startProxy(testConfig([{ name: 'dual', command: NODE, args: [MODERN] }]), { setup: first.setup });
  });

  afterAll(async () => {
    await proxy.close();
  });

  it('share one legacy-era connection beside the modern one', async () => {
    const pool = proxy.gateway.pools[0]!;
    expect(pool.shared.era).toBe('modern');
    expect(await eraSeenBy(proxy.client)).toBe('legacy');
    const second = await connectAs(proxy.gateway, { name: 'second-client', version: '1.0.0' });
    try {
      expect(await eraSeenBy(second)).toBe('legacy');
      expect(erasOf(pool)).toEqual(['modern', 'legacy']);
    } finally {
      await second.close();
    }
    expect(speaksLegacyToo(pool.config)).toBe(true);
  });

  it("get the server's question as the server asks it in their era", async () => {
    expect(await ask(proxy.client)).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(first.asked()).toBe(1);
  });
});

describe('a legacy client in front of a remote server of both eras', () => {
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    const { url, child } = await startHttp([]);
    servers.push(child);
    proxy = await startProxy(testConfig([{ name: 'dual', url }]));
  });

  afterAll(async () => {
    await proxy.close();
  });

  it('gets a legacy-era connection of its own, closed with its session', async () => {
    const pool = proxy.gateway.pools[0]!;
    expect(await eraSeenBy(proxy.client)).toBe('legacy');
    const second = await connectAs(proxy.gateway, { name: 'second-client', version: '1.0.0' });
    expect(await eraSeenBy(second)).toBe('legacy');
    expect(erasOf(pool)).toEqual(['modern', 'legacy', 'legacy']);
    await second.close();
    await waitFor(() => pool.connections.length === 2, 10_000, 20, 'the second client’s connection to close');
  });
});

describe.each([
  ['command', async () => ({ command: NODE, args: [MODERN, '--modern-only'] })],
  [
    'remote',
    async () => {
      const { url, child } = await startHttp(['--modern-only']);
      servers.push(child);
      return { url };
    },
  ],
])('legacy clients in front of a %s server that refuses the legacy era', (_kind, server) => {
  let proxy: ProxyUnderTest;
  const first = answering('Grace');

  beforeAll(async () => {
    proxy = await startProxy(testConfig([{ name: 'modern-only', ...(await server()) }]), { setup: first.setup });
  });

  afterAll(async () => {
    await proxy.close();
  });

  it('are served from the modern connection, their questions bridged, and the server is not asked again', async () => {
    const pool = proxy.gateway.pools[0]!;
    expect(speaksLegacyToo(pool.config)).toBe(false);
    expect(await eraSeenBy(proxy.client)).toBe('modern');
    expect(await ask(proxy.client)).toEqual([{ type: 'text', text: 'Hello, Grace!' }]);
    expect(first.asked()).toBe(1);
    expect(erasOf(pool)).toEqual(['modern']);
    const second = await connectAs(proxy.gateway, { name: 'second-client', version: '1.0.0' });
    try {
      expect(await eraSeenBy(second)).toBe('modern');
      expect(erasOf(pool)).toEqual(['modern']);
    } finally {
      await second.close();
    }
  });
});
