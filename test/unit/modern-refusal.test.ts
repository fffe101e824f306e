// What a 2026-07-28 client's request is refused with before it is served (src/relay/interceptors/handshake.ts), as the
// SDK's entry refuses it: no envelope, a revision the proxy does not speak, a method of the 2025 revision.
import { describe, expect, test } from '@jest/globals';
import { modernRefusal } from '../../src/relay/interceptors/handshake.js';
import { MODERN_PROTOCOL_VERSIONS } from '../../src/protocol/versions.js';

const SPOKEN = MODERN_PROTOCOL_VERSIONS[0]!;

const refusal = (method: string, claim: string | undefined, params: Record<string, unknown> = {}) => {
  const error = modernRefusal(method, claim, params);
  return error && { code: error.code, message: error.message, data: error.data };
};

describe('modernRefusal', () => {
  test('a request with an envelope of a spoken version is served, whatever its method of this revision', () => {
    for (const method of ['tools/call', 'tools/list', 'server/discover', 'subscriptions/listen', 'x/unknown'])
      expect(refusal(method, SPOKEN)).toBeUndefined();
  });

  test('a method the 2026-07-28 revision removed is not found, for a spoken version', () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'tasks/list'])
      expect(refusal(method, SPOKEN)).toEqual({
        code: -32601,
        message: `Method not found: ${method}`,
        data: undefined,
      });
  });

  test('a version the proxy does not speak is refused with the versions it does, before the method is looked at', () => {
    for (const method of ['tools/call', 'ping'])
      expect(refusal(method, '2099-01-01')).toEqual({
        code: -32022,
        message: `Unsupported protocol version: 2099-01-01 (supported versions: ${MODERN_PROTOCOL_VERSIONS.join(', ')})`,
        data: { supported: MODERN_PROTOCOL_VERSIONS, requested: '2099-01-01' },
      });
  });

  test('without the envelope: initialize is told the versions spoken, anything else that the envelope is required', () => {
    expect(refusal('initialize', undefined, { protocolVersion: '2025-11-25' })).toEqual({
      code: -32022,
      message: `Unsupported protocol version: 2025-11-25 (supported versions: ${MODERN_PROTOCOL_VERSIONS.join(', ')})`,
      data: { supported: MODERN_PROTOCOL_VERSIONS, requested: '2025-11-25' },
    });
    expect(refusal('ping', undefined)).toEqual({
      code: -32602,
      message: 'Invalid params: _meta["io.modelcontextprotocol/protocolVersion"] is required',
      data: undefined,
    });
  });
});
