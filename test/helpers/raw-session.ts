// A 2025-11-25 Streamable HTTP session opened by hand, for tests that check what goes over the wire.
import { expect } from '@jest/globals';
import { SseReader } from './sse-reader.js';

export const LEGACY_PROTOCOL = '2025-11-25';

export const rpc = (id: number, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });

/** The headers of a request of the session `sessionId` (none yet for `initialize`). */
export type SessionHeaders = (sessionId?: string) => Record<string, string>;

/**
 * `initialize` (answered 200, on an SSE stream), then `notifications/initialized` (202), each with `headers`:
 * the session's id, and the answer to `initialize` for the caller to look at.
 */
export async function handshake(
  endpoint: string,
  headers: SessionHeaders,
  clientName: string,
): Promise<{ id: string; initialize: { result?: unknown; error?: unknown } }> {
  const init = await fetch(endpoint, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify(
      rpc(1, 'initialize', {
        protocolVersion: LEGACY_PROTOCOL,
        capabilities: {},
        clientInfo: { name: clientName, version: '1' },
      }),
    ),
  });
  expect(init.status).toBe(200);
  const id = init.headers.get('mcp-session-id')!;
  const initialize = await new SseReader(init.body!).response(1);
  const initialized = await fetch(endpoint, {
    method: 'POST',
    headers: headers(id),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return { id, initialize };
}
