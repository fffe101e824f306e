// A 2026-07-28 stdio client's tools/call is taken off the wire beneath the SDK's stdio entry once the entry has pinned
// the connection (fast-path/lean-dispatch.ts, modern-wire.ts), and answered as the SDK's server answers it. The
// entry, the gateway and the upstream are the real ones; the wire is an in-memory pair in place of stdin/stdout, so
// the test can tell which calls the SDK's server dispatched. The first call of a connection pins it and always goes
// through the SDK: each case sends the same call twice and compares the two answers.
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { DirectRequests } from '../../src/fast-path/direct-requests.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { expectClientEnvelope, withoutProgressToken } from '../helpers/modern-echo.js';
import { startStdioEntry, type Message } from '../helpers/stdio-entry.js';

const MODERN = '2026-07-28';

const envelope = (capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The proxy's stdio entry over a fixture, on an in-memory wire; `sdkServed` lists what the SDK dispatched. */
async function connection(fixture: 'basic' | 'slow' | 'modern' = 'basic') {
  const entry = await startStdioEntry([{ name: fixture, command: NODE, args: [FIXTURES[fixture]] }]);
  closers.push(entry.close);
  return entry;
}

/** The answer's text with its id set aside, for comparing two answers byte for byte. */
const withoutId = (message: Message) => JSON.stringify({ ...message, id: null });

describe('a 2026-07-28 stdio client past the SDK', () => {
  test.each([
    ['a result', { name: 'echo', arguments: { message: 'hello ü 😀' } }, true],
    ['an error result', { name: 'fail', arguments: { message: 'on purpose' } }, true],
    ['an unknown tool', { name: 'nope', arguments: {} }, false],
    [
      'a call with other _meta keys',
      { name: 'echo', arguments: { message: 'x' }, _meta: { traceparent: 't-1', x: 1 } },
      true,
    ],
  ])('%s: taken past the SDK after the pinning call, and answered the same', async (_, call, byLane) => {
    const c = await connection();
    const params = { ...call, _meta: { ...envelope(), ...(call as { _meta?: object })._meta } };
    const first = await c.ask(1, params);
    const second = await c.ask(2, params);
    expect(c.sdkServed).toEqual([1]);
    expect(c.laneTaken).toEqual(byLane ? [2] : []);
    expect(withoutId(second)).toBe(withoutId(first));
    if ('result' in first) {
      expect(first.result!.resultType).toBe('complete');
      expect((first.result!._meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo']).toBeDefined();
    }
  });

  test('an envelope the SDK refuses, after the pinning call, gets the SDK answer and nothing from the lean path', async () => {
    const c = await connection();
    await c.ask(1, { name: 'echo', arguments: { message: 'pin' }, _meta: envelope() });
    const bad = { ...envelope(), 'io.modelcontextprotocol/clientCapabilities': 'none' };
    const refused = await c.ask(2, { name: 'echo', arguments: { message: 'x' }, _meta: bad });
    expect(refused.error?.message).toMatch(/^Invalid _meta envelope/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(c.received.filter((m) => m.id === 2)).toHaveLength(1);
    expect(c.sdkServed).toEqual([1]);
  });

  test('a legacy question of the upstream becomes input_required past the SDK; the retry goes through the SDK', async () => {
    const c = await connection();
    const _meta = envelope({ elicitation: { form: {} } });
    await c.ask(1, { name: 'echo', arguments: { message: 'pin' }, _meta });
    const asked = await c.ask(2, { name: 'elicit', arguments: { message: 'Your answer?' }, _meta });
    const result = asked.result as { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    expect(result.resultType).toBe('input_required');
    const [key] = Object.keys(result.inputRequests);
    const done = await c.ask(3, {
      name: 'elicit',
      arguments: { message: 'Your answer?' },
      _meta,
      inputResponses: { [key!]: { action: 'accept', content: { answer: 'forty-two' } } },
      requestState: result.requestState,
    });
    expect(JSON.stringify(done.result)).toContain('forty-two');
    expect(done.result!.resultType).toBe('complete');
    expect(c.sdkServed).toEqual([1, 3]);
    expect(c.laneTaken).toEqual([2]);
  });

  test("progress under the client's token comes before the answer, as through the SDK", async () => {
    const c = await connection('slow');
    const call = (token: string) => ({
      name: 'progress',
      arguments: { steps: 3, intervalMs: 10 },
      _meta: { ...envelope(), progressToken: token },
    });
    const first = await c.ask(1, call('p1'));
    const second = await c.ask(2, call('p2'));
    const progress = (token: string) =>
      c.received
        .filter((m) => 'method' in m && m.method === 'notifications/progress')
        .map((m) => (m as { params: Record<string, unknown> }).params)
        .filter((params) => params.progressToken === token)
        .map((params) => params.progress);
    expect(progress('p1')).toEqual([1, 2, 3]);
    expect(progress('p2')).toEqual([1, 2, 3]);
    const at = (predicate: (m: Message) => boolean) => c.received.findIndex(predicate);
    expect(at((m) => m.id === 2 && !('method' in m))).toBeGreaterThan(
      at((m) => 'method' in m && (m as { params?: { progressToken?: string } }).params?.progressToken === 'p2'),
    );
    expect(withoutId(second)).toBe(withoutId(first));
    expect(c.sdkServed).toEqual([1]);
    expect(c.laneTaken).toEqual([]);
  });

  test.each([
    ['a result', { name: 'echo', arguments: { text: 'modern ü 😀' } }],
    ['its input_required, as it came', { name: 'ask', arguments: {} }],
    ['its result _meta', { name: 'meta_echo', arguments: {}, _meta: { traceparent: 't-9' } }],
  ])("a 2026-07-28 upstream's call, %s: past the SDK on both sides, and answered the same", async (label, call) => {
    const c = await connection('modern');
    const params = {
      ...call,
      _meta: { ...envelope({ elicitation: { form: {} } }), ...(call as { _meta?: object })._meta },
    };
    const direct = jest.spyOn(DirectRequests.prototype, 'send');
    const first = await c.ask(1, params);
    const second = await c.ask(2, params);
    // Both went to the upstream past the SDK's client; the second past the SDK's server as well, by the relay lane.
    expect(direct.mock.calls.map(([method, sent]) => `${method} ${String(sent?.name)}`)).toEqual(
      Array(2).fill(`tools/call ${call.name}`),
    );
    direct.mockRestore();
    expect(c.sdkServed).toEqual([1]);
    expect(c.laneTaken).toEqual([2]);
    // The upstream sees the proxy's progress token, one per call: the one difference between the two answers.
    expect(withoutProgressToken(withoutId(second))).toBe(withoutProgressToken(withoutId(first)));
    const result = second.result!;
    if (label === 'a result')
      expect(result).toMatchObject({ resultType: 'complete', content: [{ text: 'echo: modern ü 😀' }] });
    if (label === 'its input_required, as it came') {
      expect(result).toMatchObject({ resultType: 'input_required', requestState: 'asked-for-name' });
      const done = await c.ask(3, {
        ...params,
        inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
        requestState: result.requestState,
      });
      expect(done.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Hello, Ada!' }] });
      expect(c.sdkServed).toEqual([1, 3]);
    }
    if (label === 'its result _meta') {
      expect((result._meta as Record<string, unknown>).traceparent).toBe('t-9');
      expectClientEnvelope(result);
    }
  });

  test('a call cancelled by the client is not answered, and is cancelled upstream', async () => {
    const c = await connection('slow');
    const _meta = envelope();
    await c.ask(1, { name: 'slow', arguments: { ms: 1 }, _meta });
    await c.client.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 5000 }, _meta },
    } as JSONRPCMessage);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await c.client.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 2, reason: 'changed my mind' },
    } as JSONRPCMessage);
    await waitFor(async () => {
      const seen = await c.ask(`check-${Date.now()}`, { name: 'cancellations', arguments: {}, _meta });
      return JSON.stringify(seen.result).includes('slow');
    }, 5000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(c.received.filter((m) => m.id === 2)).toEqual([]);
    expect(c.sdkServed).toEqual([1]);
    expect(c.laneTaken).toContain(2);
  });
});
