import { describe, expect, test } from '@jest/globals';
import { firstClientOf, sameClient, type ClientIdentity } from '../../src/upstreams/client-identity.js';

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
    const probe = firstClientOf({
      jsonrpc: '2.0',
      id: 'probe',
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/clientInfo': { name: 'first-client', version: '3.1' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
        },
      },
    });
    expect(probe?.legacy).toBe(false);
    expect(sameClient(probe!.identity, client({ elicitation: {} }))).toBe(true);
  });
});
