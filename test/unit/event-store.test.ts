import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { EventId, EventStore } from '../../src/shared/event-store.js';
import { approximateJsonLength, EVENT_OVERHEAD_BYTES, MemoryEventStore } from '../../src/http/memory-event-store.js';
import { sessionEventStore } from '../../src/http/session-event-store.js';

const PRIMING = {} as JSONRPCMessage;
const progress = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 1, progress: n },
});
const response = (id: number, text = 'ok'): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text }] },
});

/** Everything a store replays after `eventId`, or the error it refuses with. */
async function replay(store: EventStore, eventId: EventId): Promise<{ stream: string; messages: unknown[] }> {
  const messages: unknown[] = [];
  const stream = await store.replayEventsAfter(eventId, { send: async (_id, message) => void messages.push(message) });
  return { stream, messages };
}

describe('the memory event store', () => {
  test('replays what a stream sent after the cursor, in order, without the priming event', async () => {
    const store = new MemoryEventStore();
    const primed = await store.storeEvent('a', PRIMING);
    await store.storeEvent('b', progress(99));
    await store.storeEvent('a', progress(1));
    await store.storeEvent('a', response(7));
    expect(await store.getStreamIdForEventId(primed)).toBe('a');
    expect(await replay(store, primed)).toEqual({ stream: 'a', messages: [progress(1), response(7)] });
  });

  test('ids it never issued resume nothing', async () => {
    const store = new MemoryEventStore();
    const id = await store.storeEvent('a', PRIMING);
    for (const unknown of ['', 'x', '1-2', '9-1', '1-0', `${id}0`, '../1-1']) {
      expect(await store.getStreamIdForEventId(unknown)).toBeUndefined();
      await expect(replay(store, unknown)).rejects.toThrow(/cannot resume/);
    }
  });

  test('maxEventsPerStream drops a stream\u2019s oldest events; a cursor with nothing lost after it still resumes', async () => {
    const store = new MemoryEventStore({ maxEventsPerStream: 3 });
    const ids = [await store.storeEvent('a', PRIMING)];
    for (let i = 1; i <= 4; i++) ids.push(await store.storeEvent('a', progress(i)));
    const other = await store.storeEvent('b', PRIMING);
    expect(store.eventCount).toBe(4); // a keeps progress 2, 3, 4; b its priming event
    // The cursor's own event is gone, but everything after it is here.
    expect(await replay(store, ids[1]!)).toEqual({ stream: 'a', messages: [progress(2), progress(3), progress(4)] });
    // Progress 1 is gone: resuming from the priming event would skip it, so that is refused.
    expect(await store.getStreamIdForEventId(ids[0]!)).toBeUndefined();
    await expect(replay(store, ids[0]!)).rejects.toThrow(/cannot resume/);
    expect(await store.getStreamIdForEventId(other)).toBe('b');
  });

  test('maxBytes evicts the oldest events of any stream first', async () => {
    const big = (n: number) => response(n, 'x'.repeat(1000));
    const one = EVENT_OVERHEAD_BYTES + approximateJsonLength(big(1));
    const store = new MemoryEventStore({ maxBytes: one * 3 });
    const a = await store.storeEvent('a', PRIMING);
    await store.storeEvent('a', big(1));
    const b = await store.storeEvent('b', PRIMING);
    await store.storeEvent('b', big(2));
    await store.storeEvent('c', big(3));
    expect(store.bytes).toBeLessThanOrEqual(one * 3);
    // a's response went first (after its priming event): a answered stream left empty is dropped whole.
    expect(await store.getStreamIdForEventId(a)).toBeUndefined();
    expect(await replay(store, b)).toEqual({ stream: 'b', messages: [big(2)] });
    // A message bigger than the whole store is not kept; the store stays within its bound.
    const huge = await store.storeEvent('d', response(4, 'y'.repeat(one * 4)));
    expect(store.bytes).toBeLessThanOrEqual(one * 3);
    expect(await store.getStreamIdForEventId(huge)).toBeUndefined();
  });

  test('an answered stream is kept keepAnsweredMs after its response, an unanswered one until its session ends', async () => {
    let now = 1_000;
    const store = new MemoryEventStore({ keepAnsweredMs: 500 }, () => now);
    const answered = await store.storeEvent('s1/a', PRIMING);
    await store.storeEvent('s1/a', response(1));
    const waiting = await store.storeEvent('s1/b', PRIMING);
    now += 499;
    expect(await store.getStreamIdForEventId(answered)).toBe('s1/a');
    now += 1;
    expect(await store.getStreamIdForEventId(answered)).toBeUndefined();
    now += 60 * 60_000;
    expect(await store.getStreamIdForEventId(waiting)).toBe('s1/b');
    store.forgetStreams('s1/');
    expect(await store.getStreamIdForEventId(waiting)).toBeUndefined();
    expect([store.eventCount, store.streamCount, store.bytes]).toEqual([0, 0, 0]);
  });

  test('forgetStreams frees a closed session\u2019s events at once and leaves the others', async () => {
    const store = new MemoryEventStore();
    await store.storeEvent('s1/a', response(1));
    await store.storeEvent('s1/_GET_stream', progress(1));
    const kept = await store.storeEvent('s2/a', PRIMING);
    store.forgetStreams('s1/');
    expect(store.eventCount).toBe(1);
    expect(store.bytes).toBe(EVENT_OVERHEAD_BYTES + approximateJsonLength(PRIMING));
    expect(await store.getStreamIdForEventId(kept)).toBe('s2/a');
  });
});

describe("a session's view of the shared store", () => {
  /** The SDK's own minimal store shape: no getStreamIdForEventId, no forgetStreams. */
  function bareStore(): EventStore {
    const inner = new MemoryEventStore();
    return {
      storeEvent: (streamId, message) => inner.storeEvent(streamId, message),
      replayEventsAfter: (lastEventId, options) => inner.replayEventsAfter(lastEventId, options),
    };
  }

  test.each([
    ['the memory store', () => new MemoryEventStore() as EventStore],
    ['a store without getStreamIdForEventId', bareStore],
  ])('with %s, a session resumes its own streams and nothing of another session', async (_label, make) => {
    const shared = make();
    const alice = sessionEventStore(shared);
    const bob = sessionEventStore(shared);
    const alicePrimed = await alice.view.storeEvent('stream-1', PRIMING);
    await alice.view.storeEvent('stream-1', response(1, 'alice'));
    const bobPrimed = await bob.view.storeEvent('stream-1', PRIMING);
    await bob.view.storeEvent('stream-1', response(1, 'bob'));

    expect(await replay(alice.view, alicePrimed)).toEqual({ stream: 'stream-1', messages: [response(1, 'alice')] });
    const sent: unknown[] = [];
    await expect(
      alice.view.replayEventsAfter(bobPrimed, { send: async (_id, message) => void sent.push(message) }),
    ).rejects.toThrow(/not one of this session's/);
    expect(sent).toEqual([]);
    if (alice.view.getStreamIdForEventId) {
      expect(await alice.view.getStreamIdForEventId(bobPrimed)).toBeUndefined();
      expect(await alice.view.getStreamIdForEventId(alicePrimed)).toBe('stream-1');
    }
  });

  test('forget frees only that session\u2019s events', async () => {
    const shared = new MemoryEventStore();
    const alice = sessionEventStore(shared);
    const bob = sessionEventStore(shared);
    await alice.view.storeEvent('s', response(1));
    const kept = await bob.view.storeEvent('s', PRIMING);
    await alice.forget();
    expect(shared.eventCount).toBe(1);
    expect(await bob.view.getStreamIdForEventId!(kept)).toBe('s');
  });
});

test('approximateJsonLength is close to the JSON length', () => {
  for (const value of [response(1, 'x'.repeat(5000)), progress(3), { a: [1, 'two', null, { b: true }] }]) {
    const exact = JSON.stringify(value).length;
    const estimate = approximateJsonLength(value);
    expect(estimate).toBeGreaterThanOrEqual(exact * 0.8);
    expect(estimate).toBeLessThanOrEqual(exact * 1.5 + 50);
  }
});
