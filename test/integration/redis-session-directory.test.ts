// The session directory and the shared keys against a real redis-server: replicas racing to adopt a session or to
// make a key end with one winner, and a session's record goes only by the hand of the replica holding it.
import { silentLogger } from '../../src/logger.js';
import { connectRedis, type Redis } from '../../src/shared/redis-connection.js';
import { SessionDirectory } from '../../src/shared/session-directory.js';
import { sharedSecret } from '../../src/shared/shared-secrets.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const PREFIX = 'directory-test:';
const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };
let server: RedisServer;
const clients: Redis[] = [];
const directories: SessionDirectory[] = [];

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await Promise.all(directories.map((d) => d.stop()));
  await Promise.all(clients.map((c) => c.close()));
  await server.stop();
});

/** A replica's directory, on a connection of its own, announcing itself. */
async function replica(id: string): Promise<SessionDirectory> {
  const redis = await connectRedis(server.url, silentLogger);
  clients.push(redis);
  const directory = new SessionDirectory(
    redis,
    PREFIX,
    { id, url: `http://${id}.invalid:8080` },
    { heartbeatMs: 60_000, sessionTtlSeconds: 600 },
    silentLogger,
  );
  await directory.start();
  directories.push(directory);
  return directory;
}

describe('SessionDirectory', () => {
  test('a registered session is found by every replica, with what recreates it', async () => {
    const [a, b] = [await replica('a1'), await replica('b1')];
    await a.register('session-1', { token: 'alice', owner: 'session:xyz', events: 'p/', init: INIT });
    expect(await b.lookup('session-1')).toEqual({
      replica: 'a1',
      url: 'http://a1.invalid:8080',
      token: 'alice',
      owner: 'session:xyz',
      events: 'p/',
      init: INIT,
      kind: 'streamable',
    });
    expect(await b.isAlive('a1')).toBe(true);
    expect(await b.replicaUrl('a1')).toBe('http://a1.invalid:8080');
    expect(await b.lookup('no-such-session')).toBeUndefined();
  });

  test('replicas racing to adopt a session of a gone replica: exactly one wins', async () => {
    const gone = await replica('gone2');
    await gone.register('session-2', { token: 'alice', owner: 'o', events: '', init: INIT });
    await gone.stop();
    expect(await gone.isAlive('gone2')).toBe(false);
    const racers = await Promise.all(['r1', 'r2', 'r3', 'r4'].map((id) => replica(id)));
    const won = await Promise.all(racers.map((r) => r.adopt('session-2', 'gone2')));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = racers[won.indexOf(true)]!;
    expect((await winner.lookup('session-2'))?.replica).toBe(winner.replica.id);
    // A loser that tries again from what it saw is refused too: the holder changed.
    expect(await racers[won.indexOf(false)]!.adopt('session-2', 'gone2')).toBe(false);
  });

  test('only the holder removes or releases a session; a released one is adopted from nobody', async () => {
    const [holder, other] = [await replica('h3'), await replica('o3')];
    await holder.register('session-3', { token: 'alice', owner: 'o', events: '', init: INIT });
    await other.remove('session-3');
    await other.release('session-3');
    expect((await holder.lookup('session-3'))?.replica).toBe('h3');
    await holder.release('session-3');
    expect((await other.lookup('session-3'))?.replica).toBe('');
    expect(await other.adopt('session-3', '')).toBe(true);
    await other.remove('session-3');
    expect(await holder.lookup('session-3')).toBeUndefined();
  });

  test('replicas starting at once agree on each shared key', async () => {
    const connections = await Promise.all([1, 2, 3].map(() => connectRedis(server.url, silentLogger)));
    clients.push(...connections);
    const keys = await Promise.all(connections.map((c) => sharedSecret(c, PREFIX, 'race')));
    expect(keys[0]).toHaveLength(32);
    expect(keys.map((k) => k.toString('hex'))).toEqual(Array(3).fill(keys[0]!.toString('hex')));
    expect((await sharedSecret(connections[0]!, PREFIX, 'another')).equals(keys[0]!)).toBe(false);
  });
});
