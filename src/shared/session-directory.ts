import type { InitializeRequest } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { Redis } from './redis-connection.js';

/** What every replica knows of a legacy (mcp-session-id) session: who holds it, and how to recreate it. */
export interface SessionRecord {
  /** The replica holding it ('' when its replica let it go on shutdown: the next one to see it adopts it). */
  replica: string;
  /** Where that replica is reached (http.advertiseUrl). */
  url: string;
  /** The name of the token that opened it: only that token may use it, on any replica. */
  token: string;
  /** The artifact owner its calls store under, the same on every replica. */
  owner: string;
  /** The prefix of its streams in the event store, so an adopting replica resumes them. */
  events: string;
  /** What the client said in `initialize`, replayed to recreate the session elsewhere (null for an SSE session). */
  init: InitializeRequest['params'] | null;
  /**
   * streamable: Streamable HTTP, adopted when its replica is gone; sse: the legacy SSE transport, whose stream lives
   * and dies with its replica, so its messages are forwarded there but it is never adopted.
   */
  kind: 'streamable' | 'sse';
}

/** Swaps the holder of a session only if it is still the one the caller saw: two replicas never both adopt it. */
const ADOPT = `
if redis.call('HGET', KEYS[1], 'replica') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'replica', ARGV[2], 'url', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  return 1
end
return 0`;

/** Removes or releases a session only if this replica still holds it. */
const IF_HELD = `
if redis.call('HGET', KEYS[1], 'replica') ~= ARGV[1] then return 0 end
if ARGV[2] == 'release' then redis.call('HSET', KEYS[1], 'replica', '') else redis.call('DEL', KEYS[1]) end
return 1`;

/** How many heartbeats a replica may miss before it is taken for gone. */
const MISSED_HEARTBEATS = 3;
/** A session's record is renewed at most this often by its requests. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Legacy sessions' owners and replicas' presence, in Redis. Each replica renews `replica:<id>` every heartbeat;
 * a session whose replica's key has expired (or that was released) is adopted by whoever sees a request for it.
 */
export class SessionDirectory {
  private heartbeat?: NodeJS.Timeout;
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    readonly replica: { id: string; url: string },
    private readonly timing: { heartbeatMs: number; sessionTtlSeconds: number },
    private readonly log: Logger,
  ) {}

  /** Announces this replica and keeps announcing it. */
  async start(): Promise<void> {
    await this.beat();
    let failing = false;
    this.heartbeat = setInterval(() => {
      this.beat().then(
        () => {
          if (failing) this.log.info('redis: heartbeat renewed');
          failing = false;
        },
        (error: unknown) => {
          // Once per outage: the connection's own log says when it is back.
          if (!failing) this.log.warn({ err: String(error) }, 'redis: heartbeat failed; peers may adopt its sessions');
          failing = true;
        },
      );
    }, this.timing.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Stops announcing and says at once that this replica is gone. */
  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.redis.sendCommand(['DEL', this.replicaKey(this.replica.id)]).catch(() => undefined);
  }

  async register(
    id: string,
    record: Omit<SessionRecord, 'replica' | 'url' | 'kind'> & { kind?: 'sse' },
  ): Promise<void> {
    // A transaction would wait for a reconnection; the client should not.
    if (!this.redis.isReady) throw new Error('redis is not connected');
    const key = this.sessionKey(id);
    await this.redis
      .multi()
      .addCommand([
        'HSET',
        key,
        'replica',
        this.replica.id,
        'url',
        this.replica.url,
        'token',
        record.token,
        'owner',
        record.owner,
        'events',
        record.events,
        'init',
        JSON.stringify(record.init),
        'kind',
        record.kind ?? 'streamable',
      ])
      .addCommand(['EXPIRE', key, String(this.timing.sessionTtlSeconds)])
      .exec();
    this.touched.set(id, Date.now());
  }

  /** The session's record, or undefined when no replica knows it (never created, deleted, or expired). */
  async lookup(id: string): Promise<SessionRecord | undefined> {
    const fields = (await this.redis.sendCommand(['HGETALL', this.sessionKey(id)])) as unknown;
    const map = toMap(fields);
    if (map.token === undefined || map.init === undefined) return undefined;
    return {
      replica: map.replica ?? '',
      url: map.url ?? '',
      token: map.token,
      owner: map.owner ?? '',
      events: map.events ?? '',
      init: JSON.parse(map.init) as SessionRecord['init'],
      kind: map.kind === 'sse' ? 'sse' : 'streamable',
    };
  }

  /** Whether `replica` still announces itself. */
  async isAlive(replica: string): Promise<boolean> {
    if (replica === '') return false;
    return Number(await this.redis.sendCommand(['EXISTS', this.replicaKey(replica)])) === 1;
  }

  /** Where `replica` is reached, while it announces itself. */
  async replicaUrl(replica: string): Promise<string | undefined> {
    const url: unknown = await this.redis.sendCommand(['GET', this.replicaKey(replica)]);
    return typeof url === 'string' && url !== '' ? url : undefined;
  }

  /** Takes the session over from `from` (the holder the caller saw); false when another replica was quicker. */
  async adopt(id: string, from: string): Promise<boolean> {
    const taken = await this.redis.sendCommand([
      'EVAL',
      ADOPT,
      '1',
      this.sessionKey(id),
      from,
      this.replica.id,
      this.replica.url,
      String(this.timing.sessionTtlSeconds),
    ]);
    if (Number(taken) === 1) this.touched.set(id, Date.now());
    return Number(taken) === 1;
  }

  /** A request for a session held here: its record lives on (renewed at most once a minute). */
  touch(id: string): void {
    const last = this.touched.get(id) ?? 0;
    if (Date.now() - last < TOUCH_EVERY_MS) return;
    this.touched.set(id, Date.now());
    this.redis
      .sendCommand(['EXPIRE', this.sessionKey(id), String(this.timing.sessionTtlSeconds)])
      .catch((error: unknown) => this.log.warn({ err: String(error) }, 'redis: session record not renewed'));
  }

  /** The session ended (DELETE, idle expiry): no replica serves it any more. */
  remove(id: string): Promise<void> {
    this.touched.delete(id);
    return this.ifHeld(id, 'delete');
  }

  /** This replica shuts down: the session stays, for the next replica a request for it lands on. */
  release(id: string): Promise<void> {
    this.touched.delete(id);
    return this.ifHeld(id, 'release');
  }

  private async ifHeld(id: string, action: 'delete' | 'release'): Promise<void> {
    await this.redis.sendCommand(['EVAL', IF_HELD, '1', this.sessionKey(id), this.replica.id, action]);
  }

  private beat(): Promise<unknown> {
    const ttl = this.timing.heartbeatMs * MISSED_HEARTBEATS;
    return this.redis.sendCommand(['SET', this.replicaKey(this.replica.id), this.replica.url, 'PX', String(ttl)]);
  }

  private sessionKey(id: string): string {
    return `${this.keyPrefix}session:${id}`;
  }

  private replicaKey(id: string): string {
    return `${this.keyPrefix}replica:${id}`;
  }
}

/** HGETALL's reply as a map, whether the client decoded it to an object (RESP3) or a flat list (RESP2). */
function toMap(reply: unknown): Record<string, string | undefined> {
  if (Array.isArray(reply)) {
    const map: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.length; i += 2) map[String(reply[i])] = String(reply[i + 1]);
    return map;
  }
  return (reply ?? {}) as Record<string, string | undefined>;
}
