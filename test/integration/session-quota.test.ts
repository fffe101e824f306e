// #34 finding 8's second half: one token could open sessions without end (3000 sessions, +70 MB, and a process or an
// upstream session each for an isolated server). http.maxSessionsPerPrincipal caps the sessions a token holds open,
// Streamable HTTP and SSE together; one more gets 429 and an error naming the key, and a session that ends frees its
// place. Other tokens are not affected.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { DEFAULTS } from '../../src/config/types.js';
import { waitFor } from '../helpers/fixtures.js';
import { LEGACY_PROTOCOL, rpc } from '../helpers/raw-session.js';
import { responseOf } from '../helpers/sse-reader.js';
import { bearer, startSidecar, TOKENS, type Sidecar } from '../helpers/sidecar.js';

const [alice, bob] = TOKENS as [(typeof TOKENS)[number], (typeof TOKENS)[number]];
let sidecar: Sidecar;

beforeAll(async () => {
  sidecar = await startSidecar((config) => {
    config.httpOptions = { ...config.httpOptions, maxSessionsPerPrincipal: 2 };
  });
});

afterAll(() => sidecar?.close());

/** An initialize POST as `token`: the response's status and, when a session was opened, its id. */
async function open(token: string): Promise<{ status: number; id: string | null; body: unknown }> {
  const response = await fetch(`${sidecar.base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer(token) },
    body: JSON.stringify(
      rpc(1, 'initialize', {
        protocolVersion: LEGACY_PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'q', version: '1' },
      }),
    ),
  });
  const body = response.status === 200 ? await responseOf(response, 1) : await response.json();
  return { status: response.status, id: response.headers.get('mcp-session-id'), body };
}

const end = (token: string, id: string) =>
  fetch(`${sidecar.base}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': id, ...bearer(token) } });

async function sseClient(token: string): Promise<Client> {
  const client = new Client({ name: 'quota-sse', version: '1.0.0' });
  await client.connect(
    new SSEClientTransport(new URL(`${sidecar.base}/sse`), { requestInit: { headers: bearer(token) } }),
  );
  return client;
}

test('a token holds at most http.maxSessionsPerPrincipal sessions; one more is refused with the key named', async () => {
  const first = await open(alice.token);
  const second = await open(alice.token);
  expect([first.status, second.status]).toEqual([200, 200]);

  const refused = await open(alice.token);
  expect(refused.status).toBe(429);
  expect(refused.id).toBeNull();
  expect(refused.body).toMatchObject({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32000,
      message: expect.stringMatching(/"alice" already has 2 sessions open.*raise http\.maxSessionsPerPrincipal/),
      data: { maxSessionsPerPrincipal: 2 },
    },
  });
  // The legacy SSE transport counts the same sessions.
  const sse = await fetch(`${sidecar.base}/sse`, { headers: { accept: 'text/event-stream', ...bearer(alice.token) } });
  expect(sse.status).toBe(429);
  await sse.body?.cancel();
  // Another token is not affected.
  const other = await open(bob.token);
  expect(other.status).toBe(200);

  // A session that ends frees its place: for a Streamable HTTP session, and for an SSE one that closes.
  expect((await end(alice.token, first.id!)).status).toBe(200);
  const sseSession = await sseClient(alice.token);
  expect((await open(alice.token)).status).toBe(429);
  await sseSession.close();
  // The server hears of the closed stream a moment later: alice's second session and bob's are what is left.
  await waitFor(() => sidecar.gateway.sessionCount === 2, 10_000, 20, 'the SSE session to end');
  const again = await open(alice.token);
  expect(again.status).toBe(200);
  await Promise.all([end(alice.token, second.id!), end(alice.token, again.id!), end(bob.token, other.id!)]);
});

test('the default cap is 100 sessions a principal', () => {
  expect(DEFAULTS.httpOptions.maxSessionsPerPrincipal).toBe(100);
});
