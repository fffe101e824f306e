import { describe, expect, test } from '@jest/globals';
import { firstClientOf, sameClient, type ClientIdentity } from '../../src/upstreams/client-identity.js';
import { Frame } from '../../src/wire/frame.js';

const client = (capabilities: ClientIdentity['capabilities'], version = '3.1'): ClientIdentity => ({
  clientInfo: { name: 'first-client', version },
  capabilities,
});

describe('sameClient: whether a client introduced itself twice the same way', () => {
  test('key order and the two forms of form-mode elicitation are the same introduction', () => {
    expect(sameClient(client({ elicitation: { form: {} }, roots: {} }), client({ roots: {}, elicitation: {} }))).toBe(
      true,
    );
    expect(sameClient(client({}), { ...client({}), protocolVersion: '2025-11-25' })).toBe(true);
  });

  test('another version of the client, or other capabilities, are not', () => {
    expect(sameClient(client({}), client({}, '3.2'))).toBe(false);
    expect(sameClient(client({ elicitation: {} }), client({ elicitation: { url: {} } }))).toBe(false);
    expect(sameClient(client({}), client({ sampling: {} }))).toBe(false);
  });

  test("a 2026-07-28 envelope's client compares with the same client's initialize", () => {
    const probe = firstClientOf(
      Frame.request('probe', 'server/discover', {
        _meta: {
          'io.modelcontextprotocol/clientInfo': { name: 'first-client', version: '3.1' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
        },
      }),
    );
    expect(probe?.legacy).toBe(false);
    expect(sameClient(probe!.identity, client({ elicitation: {} }))).toBe(true);
  });

  test("a legacy client's initialize, read from its line, is that client; what names no client is none", () => {
    const first = firstClientOf(
      Frame.read(
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",' +
          '"capabilities":{"roots":{}},"clientInfo":{"name":"first-client","version":"3.1"}}}',
      ),
    );
    expect(first).toEqual({
      identity: {
        clientInfo: { name: 'first-client', version: '3.1' },
        capabilities: { roots: {} },
        protocolVersion: '2025-11-25',
      },
      legacy: true,
    });
    expect(firstClientOf(undefined)).toBeUndefined();
    expect(firstClientOf(Frame.request(1, 'tools/list', {}))).toBeUndefined();
    // A notification carrying an envelope is no request: nothing to answer, no client to open a connection as.
    const envelope = { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'first-client', version: '3.1' } } };
    expect(firstClientOf(Frame.notification('notifications/initialized', envelope))).toBeUndefined();
    expect(firstClientOf(Frame.request(2, 'tools/list', envelope))?.legacy).toBe(false);
  });
});
