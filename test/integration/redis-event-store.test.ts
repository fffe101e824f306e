// The Redis event store against a real redis-server: what one replica stores, another replays; a cursor whose event
// is gone is refused; what is not kept resumes nothing; a closed session's streams are freed.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { sessionEventStore } from '../../src/http/session-event-store.js';
import { silentLogger } from '../../src/logger.js';
import { connectRedis, type Redis } from '../../src/shared/redis-connection.js';
import { RedisEventStore } from '../../src/shared/redis-event-store.js';
import { isExactNumber, parseJson } from '../../src/wire/json.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const PREFIX = 'event-store-test:';
let server: RedisServer;
const clients: Redis[] = [];

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.stop();
});

/** A store as one replica has it: its own connection. */
async function replicaStore(limits: { maxEventsPerStream?: number; maxMessageBytes?: number } = {}) {
  const redis = await connectRedis(server.url, silentLogger);
  clients.push(redis);
  const store = new RedisEventStore(
    redis,
    {
      keyPrefix: PREFIX,
      ttlSeconds: 60,
      maxEventsPerStream: limits.maxEventsPerStream ?? 100,
      maxMessageBytes: limits.maxMessageBytes ?? 1_000_000,
    },
    silentLogger,
  );
  return { redis, store };
}

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

async function replayed(store: RedisEventStore, after: string): Promise<Array<[string, JSONRPCMessage]>> {
  const sent: Array<[string, JSONRPCMessage]> = [];
  await store.replayEventsAfter(after, { send: async (id, message) => void sent.push([id, message]) });
  return sent;
}

/** The Redis key a stream's events are kept under (the store's own naming). */
const keyOf = (store: RedisEventStore, streamId: string): string =>
  (store as unknown as { streamKey(id: string): string }).streamKey(streamId);

describe('RedisEventStore', () => {
  test('what one replica stored, another replays after any cursor, in order, with the same ids', async () => {
    const [one, two] = [await replicaStore(), await replicaStore()];
    const ids = [];
    for (let n = 1; n <= 4; n++) ids.push(await one.store.storeEvent('s1/stream-a', note(n)));
    await one.store.storeEvent('s1/stream-b', note(99));
    expect(await two.store.getStreamIdForEventId(ids[1]!)).toBe('s1/stream-a');
    const after = await replayed(two.store, ids[1]!);
    expect(after).toEqual([
      [ids[2], note(3)],
      [ids[3], note(4)],
    ]);
    expect(await replayed(two.store, ids[3]!)).toEqual([]);
  });

  test('a number a double cannot hold is kept in Redis as written, and read back by another replica as written', async () => {
    const [one, two] = [await replicaStore(), await replicaStore()];
    const message = parseJson(
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"id":12345678901234567890123}}',
    );
    const first = await one.store.storeEvent('s9/stream', note(0));
    await one.store.storeEvent('s9/stream', message as JSONRPCMessage);
    const entries = (await one.redis.sendCommand(['XRANGE', keyOf(one.store, 's9/stream'), '-', '+'])) as [
      string,
      string[],
    ][];
    expect(entries.map(([, fields]) => fields[1]).join('\n')).toContain('"params":{"id":12345678901234567890123}');
    const [[, replay]] = await replayed(two.store, first);
    const id = (replay as unknown as { params: { id: unknown } }).params.id;
    expect(isExactNumber(id) && id.rawJSON).toBe('12345678901234567890123');
    expect(JSON.stringify(replay)).toContain('"params":{"id":12345678901234567890123}');
  });

  test('a cursor whose event was trimmed is refused, never answered with a gap', async () => {
    const { store } = await replicaStore({ maxEventsPerStream: 3 });
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await store.storeEvent('s2/stream', note(n)));
    expect(await store.getStreamIdForEventId(ids[0]!)).toBeUndefined();
    await expect(replayed(store, ids[0]!)).rejects.toThrow(/no longer kept/);
    expect((await replayed(store, ids[2]!)).map(([, m]) => m)).toEqual([note(4), note(5)]);
  });

  test('a message over the size limit is sent with an id that resumes nothing', async () => {
    const { store } = await replicaStore({ maxMessageBytes: 100 });
    const kept = await store.storeEvent('s3/stream', note(1));
    const big = await store.storeEvent('s3/stream', { ...note(2), params: { text: 'x'.repeat(200) } });
    expect(await store.getStreamIdForEventId(big)).toBeUndefined();
    await expect(replayed(store, big)).rejects.toThrow(/not one this store made/);
    // And it is not replayed after an earlier cursor either: it was never kept.
    expect(await replayed(store, kept)).toEqual([]);
    // Ids that are not this store's at all resume nothing either.
    for (const id of ['', '12-1', 'abc.def', 'x.1-1']) expect(await store.getStreamIdForEventId(id)).toBeUndefined();
  });

  test('a session view on another replica, with the same prefix, resumes; another session cannot', async () => {
    const [one, two] = [await replicaStore(), await replicaStore()];
    const held = sessionEventStore(one.store, 'session-x/');
    const id = await held.view.storeEvent('call-1', note(1));
    await held.view.storeEvent('call-1', note(2));
    const adopted = sessionEventStore(two.store, held.prefix);
    const sent: JSONRPCMessage[] = [];
    expect(await adopted.view.replayEventsAfter(id, { send: async (_id, m) => void sent.push(m) })).toBe('call-1');
    expect(sent).toEqual([note(2)]);
    const stranger = sessionEventStore(two.store);
    await expect(stranger.view.replayEventsAfter(id, { send: async () => undefined })).rejects.toThrow(
      /not one of this session's/,
    );
  });

  test("a closed session's streams are deleted, and only its own", async () => {
    const { redis, store } = await replicaStore();
    const closing = sessionEventStore(store, 'closing/');
    const other = sessionEventStore(store, 'other/');
    await closing.view.storeEvent('a', note(1));
    await closing.view.storeEvent('b', note(2));
    await other.view.storeEvent('a', note(3));
    await closing.forget();
    expect((await redis.keys(`${PREFIX}events:closing/*`)).sort()).toEqual([]);
    expect(await redis.keys(`${PREFIX}events:other/*`)).toEqual([`${PREFIX}events:other/a`]);
    expect(await redis.ttl(`${PREFIX}events:other/a`)).toBeGreaterThan(0);
  });
});
