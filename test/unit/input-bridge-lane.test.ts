// A 2026-07-28 client's call sent by the relay lane (gateway/relay-lane.ts) is known to the input bridge only in case
// the upstream asks something during it (InputBridge.lane): without a question the lane delivers the outcome and the
// bridge forgets the call; with one, the client's request is answered input_required and the call is held, and a
// hold that runs out cancels it upstream through the lane.
import { describe, expect, test } from '@jest/globals';
import type { JSONRPCRequest, Result } from '@modelcontextprotocol/server';
import { InputBridge } from '../../src/gateway/input-bridge.js';
import { silentLogger } from '../../src/logger.js';
import { Blobs } from '../../src/transports/blob-set.js';
import type { Upstream } from '../../src/upstreams/upstream.js';
import { waitFor } from '../helpers/fixtures.js';

// The bridge reads an upstream's name (for its messages) and uses it as the key of its calls.
const upstream = { name: 'legacy' } as unknown as Upstream;
const question: JSONRPCRequest = {
  jsonrpc: '2.0',
  id: 7,
  method: 'elicitation/create',
  params: { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } },
};
const outcome = { result: { content: [{ type: 'text', text: 'done' }] }, blobs: Blobs.NONE };

function laneCall(holdMs = 60_000, capabilities: Record<string, unknown> = { elicitation: { form: {} } }) {
  const bridge = new InputBridge(holdMs, silentLogger);
  const answers: Result[] = [];
  const cancelled: unknown[] = [];
  const hold = bridge.lane(
    'token:alice',
    upstream,
    'tools/call ask',
    capabilities,
    (result) => answers.push(result),
    (reason) => cancelled.push(reason),
  );
  return { bridge, hold, answers, cancelled };
}

describe('InputBridge.lane', () => {
  test('without a question the lane keeps the outcome, and the bridge forgets the call', () => {
    const { bridge, hold, answers } = laneCall();
    expect(bridge.callsOn(upstream)).toHaveLength(1);
    expect(hold.took(outcome)).toBe(false);
    expect(bridge.callsOn(upstream)).toHaveLength(0);
    expect(answers).toEqual([]);
  });

  test('a call the client cancels before any question is forgotten', () => {
    const { bridge, hold } = laneCall();
    hold.drop();
    expect(bridge.callsOn(upstream)).toHaveLength(0);
  });

  test('a question answers the request input_required; the outcome is then the held call’s', async () => {
    const { bridge, hold, answers, cancelled } = laneCall();
    const asked = bridge.callsOn(upstream)[0]!.ask(question, new AbortController().signal);
    expect(answers).toHaveLength(1);
    const result = answers[0] as { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    expect(result.resultType).toBe('input_required');
    expect(Object.values(result.inputRequests)).toEqual([{ method: question.method, params: question.params }]);
    expect(bridge.owns(result.requestState)).toBe(true);
    expect(hold.took(outcome)).toBe(true);
    // Settled, and held for the client's retry (InputBridge.resume, served by the handler): no longer a call in
    // flight that a question could belong to, and not cancelled upstream.
    await new Promise((resolve) => setImmediate(resolve));
    expect(bridge.callsOn(upstream)).toHaveLength(0);
    expect(cancelled).toEqual([]);
    void asked.catch(() => undefined);
  });

  test('a question the client cannot answer is refused, and the request keeps waiting for the outcome', async () => {
    const { bridge, hold, answers } = laneCall(60_000, {});
    await expect(bridge.callsOn(upstream)[0]!.ask(question, new AbortController().signal)).rejects.toThrow(
      /does not support elicitation/,
    );
    expect(answers).toEqual([]);
    expect(hold.took(outcome)).toBe(false);
  });

  test('a held call whose client does not come back is cancelled upstream through the lane', async () => {
    const { bridge, cancelled } = laneCall(50);
    void bridge
      .callsOn(upstream)[0]!
      .ask(question, new AbortController().signal)
      .catch(() => undefined);
    await waitFor(() => cancelled.length > 0, 5_000);
    expect(String(cancelled[0])).toMatch(/did not come back to tools\/call ask within the hold time/);
  });
});
