// #34 finding 8: a client's session that ends must end what was opened upstream for it. A Streamable HTTP upstream
// gets a session of its own per client session (remote servers are isolated); each way a client's session ends (its
// DELETE, http.sessionIdleMs, its SSE stream closing, the gateway's shutdown) must DELETE that upstream session, and
// only that one: the shared connection serves on until the gateway stops.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpHandle } from '../../src/http/server.js';
import { silentLogger } from '../../src/logger.js';
import { waitFor } from '../helpers/fixtures.js';
import { NO_OFFLOAD, testConfig } from '../helpers/proxy.js';
import { LEGACY_PROTOCOL, rpc } from '../helpers/raw-session.js';
import { responseOf } from '../helpers/sse-reader.js';
import { startSessionRecordingServer, type SessionRecordingServer } from '../helpers/session-recording-server.js';
import { textsOf } from '../helpers/sidecar.js';

/** Short enough to see a session expire, long enough for the others' requests to keep theirs. */
const IDLE_MS = 1500;

let upstream: SessionRecordingServer;
let gateway: Gateway;
let http: HttpHandle;
let base: string;

beforeAll(async () => {
  upstream = await startSessionRecordingServer();
  const config = testConfig([{ name: 'remote', url: upstream.url, transport: 'streamable-http' }], NO_OFFLOAD);
  config.httpOptions = { ...config.httpOptions, sessionIdleMs: IDLE_MS };
  gateway = new Gateway(config, silentLogger);
  await gateway.start();
  http = await serveHttp(gateway, { host: '127.0.0.1', port: 0 }, silentLogger);
  base = `http://127.0.0.1:${http.port}`;
});

afterAll(async () => {
  await http?.close();
  await gateway?.stop();
  await upstream?.close();
});

/** The upstream session that serves `client` (the tool answers its session id). */
async function upstreamSessionOf(client: Client): Promise<string> {
  return textsOf(await client.callTool({ name: 'whoami', arguments: {} }));
}

async function streamableClient(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`));
  const client = new Client({ name: 'session-end', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A 2025-11-25 session opened by hand, that then sends nothing (its client went away without DELETE). */
async function silentSession(): Promise<string> {
  const headers = (id?: string) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(id ? { 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_PROTOCOL } : {}),
  });
  const init = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify(
      rpc(1, 'initialize', {
        protocolVersion: LEGACY_PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'B', version: '1' },
      }),
    ),
  });
  const id = init.headers.get('mcp-session-id')!;
  await responseOf(init, 1);
  await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: headers(id),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  const call = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: headers(id),
    body: JSON.stringify(rpc(2, 'tools/call', { name: 'whoami', arguments: {} })),
  });
  const answer = (await responseOf(call, 2)) as { result: { content: Array<{ text: string }> } };
  return answer.result.content[0]!.text;
}

test('each way a client session ends DELETEs its own upstream session, and only its own', async () => {
  // The shared connection opened one session when the gateway started.
  expect(upstream.opened).toHaveLength(1);
  const shared = upstream.opened[0]!;

  const a = await streamableClient();
  const aSession = await upstreamSessionOf(a.client);
  const bSession = await silentSession();
  const c = new Client({ name: 'session-end-sse', version: '1.0.0' });
  await c.connect(new SSEClientTransport(new URL(`${base}/sse`)));
  const cSession = await upstreamSessionOf(c);
  const d = await streamableClient();
  const dSession = await upstreamSessionOf(d.client);
  // Four clients, four upstream sessions of their own beside the shared one.
  expect(new Set([shared, aSession, bSession, cSession, dSession]).size).toBe(5);
  expect(upstream.open()).toHaveLength(5);

  // A ends its session with DELETE.
  await a.transport.terminateSession();
  await waitFor(() => upstream.deleted.includes(aSession), 10_000, 20, "A's upstream session to be deleted");
  // C's SSE stream closes.
  await c.close();
  await waitFor(() => upstream.deleted.includes(cSession), 10_000, 20, "C's upstream session to be deleted");
  // B went away without a word: its session expires after http.sessionIdleMs. D keeps its own alive meanwhile.
  const keepAlive = setInterval(() => void d.client.ping().catch(() => undefined), IDLE_MS / 4);
  try {
    await waitFor(() => upstream.deleted.includes(bSession), 10_000, 50, "B's upstream session to expire");
  } finally {
    clearInterval(keepAlive);
  }
  expect(upstream.open().sort()).toEqual([shared, dSession].sort());
  expect(await upstreamSessionOf(d.client)).toBe(dSession);

  // The gateway's shutdown ends the rest, the shared connection's session included.
  await d.client.close();
  await http.close();
  await gateway.stop();
  expect(upstream.open()).toEqual([]);
  expect(upstream.deleted.sort()).toEqual([shared, aSession, bSession, cSession, dSession].sort());
}, 60_000);
