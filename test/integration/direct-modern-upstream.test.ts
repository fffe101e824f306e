// A relayed tools/call to a 2026-07-28 stdio server goes past the SDK's client (fast-path/direct-requests.ts): written
// as the SDK's client writes it in that era, the envelope first in `_meta`. The server is the real SDK v2 fixture in
// its own process; it echoes what it received, and the same request sent through the SDK's client must echo the same.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ResultSchema } from '@modelcontextprotocol/core';
import { Client } from '@modelcontextprotocol/client';
import { directRequestsOf, relayDirectly, sentDirectly } from '../../src/fast-path/direct-requests.js';
import { silentLogger } from '../../src/logger.js';
import { ProcessTransport } from '../../src/transports/process-transport.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';

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
