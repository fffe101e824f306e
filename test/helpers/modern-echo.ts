// What the SDK v2 fixture server (test/fixtures/modern-server.mjs) says it received, for the tests that compare a call
// sent past the SDK with the same call sent through it.
import { expect } from '@jest/globals';

/**
 * An answer's text with the progress token the proxy gives each relayed call set aside (meta_echo echoes it inside
 * its text, where its quotes are escaped): the one difference between two answers to the same call.
 */
export const withoutProgressToken = (text: string): string => text.replace(/\\"progressToken\\":[^,}]*/g, 'TOKEN');

/** That meta_echo's result says the server got the call with the envelope a 2026-07-28 client `raw-modern` sent. */
export function expectClientEnvelope(result: Record<string, unknown>): void {
  const seen = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as {
    envelope: Record<string, unknown>;
  };
  expect(seen.envelope).toMatchObject({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  });
}
