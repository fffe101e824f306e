// A relayed tools/call to a 2026-07-28 server goes past the SDK's client (fast-path/direct-requests.ts): written as
// the SDK's client writes it in that era, the envelope first in `_meta`, over HTTP with the headers the SDK's transport
// writes (fast-path/http-post.ts). The server is the real SDK v2 fixture in its own process, over stdio and over
// Streamable HTTP; it echoes what it received, and the same request sent through the SDK's client must echo the same.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { ResultSchema } from '@modelcontextprotocol/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { directRequestsOf, relayDirectly, sentDirectly } from '../../src/fast-path/direct-requests.js';
import { HttpPoster } from '../../src/fast-path/http-post.js';
import { silentLogger } from '../../src/logger.js';
import { encodeParamValue } from '../../src/protocol/param-header-codec.js';
import { DecoratedTransport } from '../../src/transports/decorated-transport.js';
import { ProcessTransport } from '../../src/transports/process-transport.js';
import { FIXTURES, NODE, startListening } from '../helpers/fixtures.js';

let client: Client;
let transport: ProcessTransport;

beforeAll(async () => {
  transport = new ProcessTransport({
    command: NODE,
    args: [FIXTURES.modern],
    env: process.env as Record<string, string>,
    log: silentLogger,
  });
  client = new Client(
    { name: 'direct-check', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  relayDirectly({ client, transport });
});

afterAll(async () => {
  await client.close();
});

/** What the fixture's meta_echo saw of a request: its `_meta` and envelope, as JSON text (key order included). */
const seen = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('a 2026-07-28 stdio server: relayed calls past the SDK client', () => {
  test('the connection relays directly, and the server sees exactly what the SDK client would have sent', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(directRequestsOf(client)).toBeDefined();
    const request = {
      method: 'tools/call',
      params: { name: 'meta_echo', arguments: {}, _meta: { traceparent: '00-ab-cd-01', progressToken: 'p-1' } },
    };
    const direct = sentDirectly(client, request, { signal: new AbortController().signal });
    expect(direct).toBeDefined();
    // Without a signal the request is not a relayed one: the SDK's client sends it.
    expect(sentDirectly(client, request, undefined)).toBeUndefined();
    const viaSdk = await client.request(request as never, ResultSchema);
    const past = (await direct!) as Record<string, unknown>;
    expect(seen(past)).toBe(seen(viaSdk));
    expect(JSON.parse(seen(past))).toMatchObject({
      _meta: { traceparent: '00-ab-cd-01', progressToken: 'p-1' },
      envelope: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'direct-check', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
    });
    // The result as the server sent it: its resultType kept (the SDK's client drops it).
    expect(past.resultType).toBe('complete');
  });

  test('only tools/call goes this way in the 2026-07-28 era', () => {
    const signal = new AbortController().signal;
    expect(sentDirectly(client, { method: 'resources/read', params: { uri: 'fixture://note' } }, { signal })).toBe(
      undefined,
    );
    expect(sentDirectly(client, { method: 'prompts/get', params: { name: 'x' } }, { signal })).toBeUndefined();
  });

  test('an input_required answer comes back as the server sent it', async () => {
    const signal = new AbortController().signal;
    const result = (await sentDirectly(
      client,
      { method: 'tools/call', params: { name: 'ask', arguments: {} } },
      {
        signal,
      },
    )) as Record<string, unknown>;
    expect(result).toMatchObject({ resultType: 'input_required', requestState: 'asked-for-name' });
  });
});

describe('a 2026-07-28 server over Streamable HTTP: relayed calls past the SDK client and its transport', () => {
  let server: ChildProcess;
  let http: Client;

  beforeAll(async () => {
    const started = await startListening(NODE, [FIXTURES.modern, '--http', '0'], /listening (\d+)/);
    server = started.child;
    const url = `http://127.0.0.1:${started.match[1]}/mcp`;
    const wire = new StreamableHTTPClientTransport(new URL(url));
    http = new Client(
      { name: 'direct-check', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await http.connect(new DecoratedTransport(wire, {}));
    relayDirectly({ client: http, transport: wire }, { url, headers: { 'x-team': 'blue' } });
  });

  afterAll(async () => {
    await http.close();
    server.kill('SIGTERM');
  });

  /** The same request past the SDK (through Node's HTTP client) and through it; what each ended with. */
  async function bothWays(params: Record<string, unknown>, headers?: Record<string, string>) {
    const posted = jest.spyOn(HttpPoster.prototype, 'post');
    const options = { signal: new AbortController().signal, ...(headers ? { headers } : {}) };
    const direct = sentDirectly(http, { method: 'tools/call', params }, options as never);
    expect(direct).toBeDefined();
    const past = await direct!.catch((error: unknown) => error);
    expect(posted).toHaveBeenCalledTimes(1);
    posted.mockRestore();
    const through = await http
      .request({ method: 'tools/call', params } as never, ResultSchema, headers ? ({ headers } as never) : undefined)
      .catch((error: unknown) => error);
    return { past, through };
  }

  test('the server sees what the SDK would have sent, and the answer comes back as it sent it', async () => {
    expect(directRequestsOf(http)).toBeDefined();
    const { past, through } = await bothWays({ name: 'meta_echo', arguments: {}, _meta: { traceparent: '00-1-2-01' } });
    expect(seen(past)).toBe(seen(through));
    expect(JSON.parse(seen(past)).envelope['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect((past as Record<string, unknown>).resultType).toBe('complete');
  });

  test('a declared argument goes in its Mcp-Param header, Base64-wrapped where the SDK wraps it', async () => {
    const region = 'Zürich ☃';
    const headers = { 'Mcp-Param-Region': encodeParamValue(region) };
    expect(headers['Mcp-Param-Region']).toMatch(/^=\?base64\?/);
    const { past, through } = await bothWays({ name: 'region_echo', arguments: { region } }, headers);
    expect(past).toMatchObject({ content: [{ text: `region: ${region}` }] });
    expect(through).toMatchObject({ content: [{ text: `region: ${region}` }] });
  });

  test("a 400 with the server's JSON-RPC error is the request's answer, as through the SDK's transport", async () => {
    // No Mcp-Param-Region header: the server refuses the call with HTTP 400 and a JSON-RPC error for it.
    const { past, through } = await bothWays({ name: 'region_echo', arguments: { region: 'eu' } });
    expect(past).toBeInstanceOf(Error);
    expect(through).toBeInstanceOf(Error);
    const { code, message } = past as { code?: unknown; message: string };
    expect(code).toBe((through as { code?: unknown }).code);
    expect(typeof code).toBe('number');
    expect(message).toBe((through as Error).message);
  });
});
