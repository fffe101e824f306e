// A legacy client's prompts/get and resources/read are taken past the SDK's server, as its tools/call is
// (fast-path/lean-dispatch.ts), over stdio (beneath the SDK's stdio entry) and on the HTTP lean POST, when they go
// to a legacy-era upstream or to the proxy itself; the answer is the one the SDK's server gives. A read that goes to
// a 2026-07-28 upstream stays with the SDK (its answer may ask the client for input, which the handler bridges).
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { RequestId } from '@modelcontextprotocol/server';
import type { ChildProcess } from 'node:child_process';
import { FIXTURES, NODE, startListening } from '../helpers/fixtures.js';
import { startHttpGateway, type HttpGateway } from '../helpers/http-gateway.js';
import { testConfig } from '../helpers/proxy.js';
import { handshake, LEGACY_PROTOCOL } from '../helpers/raw-session.js';
import { recordServedBy, type ServedBy } from '../helpers/served-by.js';
import { responseOf } from '../helpers/sse-reader.js';
import { startStdioEntry, type Message, type StdioEntry } from '../helpers/stdio-entry.js';

/** Two legacy fixtures over stdio, and the 2026-07-28 fixture over Streamable HTTP (which the proxy speaks 2026 to). */
let servers: Parameters<typeof testConfig>[0];
let modernHttp: ChildProcess;

beforeAll(async () => {
  const started = await startListening(NODE, [FIXTURES.modern, '--http', '0', '--modern-only'], /listening (\d+)/);
  modernHttp = started.child;
  servers = [
    { name: 'basic', command: NODE, args: [FIXTURES.basic] },
    { name: 'exact', command: NODE, args: [FIXTURES.exactNumbers] },
    { name: 'modern', url: `http://127.0.0.1:${started.match[1]}/mcp` },
  ];
});

afterAll(() => void modernHttp.kill('SIGTERM'));

/** A key of the 2026-07-28 vocabulary: a request that carries one is left to the SDK (eligibility.ts). */
const TO_THE_SDK = { _meta: { 'io.modelcontextprotocol/related': 'x' } };

/** The reads of each kind, with whether the lean path takes them. */
const READS: Array<[string, string, Record<string, unknown>, boolean]> = [
  ['a prompt of a legacy server', 'prompts/get', { name: 'basic__greet', arguments: { who: 'Zoë 😀' } }, true],
  ['a resource of a legacy server', 'resources/read', { uri: 'fixture://basic/hello' }, true],
  ['a binary resource of a legacy server', 'resources/read', { uri: 'fixture://basic/data.bin' }, true],
  ['a templated resource of a legacy server', 'resources/read', { uri: 'fixture://basic/items/7' }, true],
  ['an unknown prompt (answered by the proxy)', 'prompts/get', { name: 'nope' }, true],
  // The server has a tool of the same name: the relay lane, which takes tool calls, must not take this.
  ['a prompt named as a tool of its server', 'prompts/get', { name: 'exact__numbers' }, true],
  ['a resource of a 2026-07-28 server', 'resources/read', { uri: 'fixture://note' }, false],
];

/** The answer's text with its id set aside, for comparing two answers byte for byte. */
const withoutId = (message: Message) => JSON.stringify({ ...message, id: null });

/**
 * Sends each read past the SDK and through it (`ask`), and checks that both answers are the same and which path
 * served each.
 */
function readsAlike(
  ask: (id: RequestId, method: string, params: Record<string, unknown>) => Promise<Message>,
  served: () => ServedBy,
): void {
  afterEach(() => served().clear());
  test.each(READS)('%s: %s answered alike past the SDK and through it', async (label, method, params, lean) => {
    const past = await ask(`${label} lean`, method, params);
    const through = await ask(`${label} sdk`, method, { ...params, ...TO_THE_SDK });
    expect(withoutId(past)).toBe(withoutId(through));
    expect(served().sdkServed).toEqual(lean ? [`${label} sdk`] : [`${label} lean`, `${label} sdk`]);
    expect(served().laneTaken).toEqual([]);
  });
}

describe('over stdio, beneath the SDK entry', () => {
  let entry: StdioEntry;

  beforeAll(async () => {
    entry = await startStdioEntry(servers);
    const init = { protocolVersion: LEGACY_PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
    await entry.ask(0, init, 'initialize');
    await entry.client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });

  afterAll(async () => entry.close());

  readsAlike(
    (id, method, params) => entry.ask(id, params, method),
    () => entry,
  );
});

describe('over HTTP, on the lean POST', () => {
  let gateway: HttpGateway;
  let served: ServedBy;
  let post: (id: RequestId, method: string, params: Record<string, unknown>) => Promise<Message>;

  beforeAll(async () => {
    gateway = await startHttpGateway(servers, (made) => (served = recordServedBy(made)));
    const headers = (id?: string): Record<string, string> => ({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(id ? { 'mcp-session-id': id, 'mcp-protocol-version': LEGACY_PROTOCOL } : {}),
    });
    const session = await handshake(gateway.endpoint, headers, 'raw-reads');
    post = async (id, method, params) => {
      const response = await fetch(gateway.endpoint, {
        method: 'POST',
        headers: headers(session.id),
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
      return { jsonrpc: '2.0', id, ...(await responseOf(response, id)) } as Message;
    };
  });

  afterAll(async () => gateway.close());

  readsAlike(
    (id, method, params) => post(id, method, params),
    () => served,
  );
});
