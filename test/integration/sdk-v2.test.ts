// The proxy runs on SDK v2: a legacy (2025-11-25 and older) client gets what v2's own encoders and decoders would
// change relayed as the upstream sent it (error codes and data, tool lists), and a client that negotiates
// 2026-07-28 gets it.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ResultSchema as ResultSchemaV1 } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { closeAllDirect, connectFixture, FIXTURES, NODE } from '../helpers/fixtures.js';
import { NO_OFFLOAD, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { CLI, cliEnv, REPO_ROOT, stopAllCli } from '../helpers/cli.js';
import { bearer, startSidecar, TOKENS, type Sidecar } from '../helpers/sidecar.js';

const LEGACY_LATEST = '2025-11-25';
const MODERN = '2026-07-28';

/** What a request was answered with: its result, or its error's code, message and data. */
async function outcome(request: Promise<unknown>): Promise<unknown> {
  try {
    return { result: await request };
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    return { error: { code, message, data } };
  }
}

/** The same requests, directly to the wire-edges fixture and through the proxy, answered alike. */
describe('relayed as the upstream sent it', () => {
  let proxy: ProxyUnderTest;
  let direct: ClientV1;

  beforeAll(async () => {
    proxy = await startProxy(testConfig([{ name: 'edges', command: NODE, args: [FIXTURES.wireEdges] }], NO_OFFLOAD));
    direct = (await connectFixture('wireEdges')).client;
  });

  afterAll(async () => {
    await proxy.close();
    await closeAllDirect();
  });

  const both = async (ask: (client: ClientV1) => Promise<unknown>) => ({
    direct: await outcome(ask(direct)),
    proxied: await outcome(ask(proxy.client)),
  });

  test('a tool whose output schema is an array is listed as it is', async () => {
    const { direct: listed, proxied } = await both((c) =>
      c.request({ method: 'tools/list', params: {} }, ResultSchemaV1),
    );
    expect(listed).toMatchObject({
      result: {
        tools: expect.arrayContaining([
          expect.objectContaining({
            name: 'array-output',
            outputSchema: { type: 'array', items: { type: 'number' } },
          }),
        ]),
      },
    });
    expect(proxied).toEqual(listed);
  });

  test('resource not found keeps its code -32002 and all its data', async () => {
    const { direct: missing, proxied } = await both((c) => c.readResource({ uri: 'edge://missing' }));
    expect(missing).toMatchObject({
      error: { code: -32002, data: { uri: 'edge://missing', detail: 'deleted yesterday' } },
    });
    expect(proxied).toEqual(missing);
  });

  test('an error keeps the data its typed SDK v2 class does not name', async () => {
    const { direct: refused, proxied } = await both((c) => c.callTool({ name: 'old-version', arguments: {} }));
    expect(refused).toMatchObject({ error: { code: -32022, data: { upgradeAt: 'https://example.com/upgrade' } } });
    expect(proxied).toEqual(refused);
  });
});

describe('a v2 client that negotiates the 2026-07-28 revision', () => {
  let sidecar: Sidecar | undefined;

  afterEach(async () => {
    await sidecar?.close();
    sidecar = undefined;
    await stopAllCli();
  });

  const autoClient = () =>
    new Client({ name: 'v2-auto', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });

  test('gets 2026-07-28 over stdio, and a v1 upstream is probed, then initialized the legacy way', async () => {
    const client = autoClient();
    const transport = new StdioClientTransport({
      command: NODE,
      args: [CLI, '--', NODE, FIXTURES.wireEdges],
      env: cliEnv(),
      cwd: REPO_ROOT,
      stderr: 'ignore',
    });
    await client.connect(transport);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const result = await client.callTool({ name: 'handshake', arguments: {} });
      const greeting = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
      // The proxy asks the era first (protocol: auto); this v1 server does not know server/discover and is then
      // initialized at the newest legacy version.
      expect(greeting).toMatchObject({ firstMethod: 'server/discover', protocolVersion: LEGACY_LATEST });
    } finally {
      await client.close();
    }
  });

  test('gets 2026-07-28 over Streamable HTTP', async () => {
    sidecar = await startSidecar();
    const client = autoClient();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${sidecar.base}/mcp`), {
        requestInit: { headers: bearer(TOKENS[0].token) },
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
