import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { isPrimingRecord, type EventId, type EventStore, type StreamId } from './event-store.js';
import type { Logger } from '../logger.js';
import type { Redis } from './redis-connection.js';
import { parseJson, stringifyJson } from '../wire/json.js';

export interface RedisEventStoreOptions {
  /** Prefix of every key (the redis.keyPrefix). */
  keyPrefix: string;
  /** A stream's events are kept this long after its last one. */
  ttlSeconds: number;
  /** Events kept per stream; the oldest go first. */
  maxEventsPerStream: number;
  /** A message longer than this (its JSON) is sent but not kept. */
  maxMessageBytes: number;
}

/** Separates the encoded stream id from the Redis entry id in an event id; neither contains it. */
const SEPARATOR = '.';

/**
 * The event store of several replicas: every stream is a Redis stream (XADD, capped at maxEventsPerStream, expiring
 * ttlSeconds after its last event), so a client that reconnects with Last-Event-ID on any replica gets what it
 * missed. An event id is `<base64url of the stream id>.<entry id>`: any replica finds the stream from the id alone.
 * A cursor whose entry was trimmed or expired is refused (the SDK answers 400), never handed a gap.
 *
 * Redis failing mid-run loses no message: storeEvent then logs and names the event with an id that resumes nothing,
 * and the message is still sent live.
 */
export class RedisEventStore implements EventStore {
  private notKeptCount = 0;
  private lastWarned = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisEventStoreOptions,
    private readonly log: Logger,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const json = stringifyJson(message);
    const encoded = Buffer.from(streamId, 'utf8').toString('base64url');
    if (json.length > this.options.maxMessageBytes) return this.notKept(encoded, 'the message is over maxBytes');
    // A transaction waits for a reconnection rather than fail at once: while Redis is away, do not even try, so
    // live messages are not held up.
    if (!this.redis.isReady) return this.notKept(encoded, 'redis is not connected');
    const key = this.streamKey(streamId);
    const group = this.groupKey(streamId);
    try {
      const ttl = String(this.options.ttlSeconds);
      const replies = await this.redis
        .multi()
        .addCommand(['XADD', key, 'MAXLEN', String(this.options.maxEventsPerStream), '*', 'm', json])
        .addCommand(['EXPIRE', key, ttl])
        .addCommand(group ? ['SADD', group, key] : ['PING'])
        .addCommand(group ? ['EXPIRE', group, ttl] : ['PING'])
        .exec();
      return `${encoded}${SEPARATOR}${String(replies[0])}`;
    } catch (error) {
      return this.notKept(encoded, String(error));
    }
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    const parsed = parseEventId(eventId);
    if (!parsed) return undefined;
    const found = await this.redis.sendCommand(['XRANGE', this.streamKey(parsed.streamId), parsed.entry, parsed.entry]);
    return Array.isArray(found) && found.length === 1 ? parsed.streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) throw new Error(`event ${lastEventId.slice(0, 100)} is not one this store made`);
    const key = this.streamKey(parsed.streamId);
    // The cursor's own entry must still be there: if it was trimmed, something after it may have been too.
    const [cursor, after] = (await this.redis
      .multi()
      .addCommand(['XRANGE', key, parsed.entry, parsed.entry])
      .addCommand(['XRANGE', key, `(${parsed.entry}`, '+'])
      .exec()) as unknown as [unknown[], Array<[string, string[]]>];
    if (!Array.isArray(cursor) || cursor.length !== 1) {
      throw new Error(`event ${lastEventId.slice(0, 100)} is no longer kept: what followed it may be lost`);
    }
    const encoded = lastEventId.slice(0, lastEventId.indexOf(SEPARATOR));
    for (const [entry, fields] of after) {
      const json = fields[fields.indexOf('m') + 1];
      if (json === undefined) continue;
      const message = parseJson(json) as JSONRPCMessage;
      // A priming record only marks where a stream began (and what it answers): no client is sent one.
      if (!isPrimingRecord(message)) await send(`${encoded}${SEPARATOR}${entry}`, message);
    }
    return parsed.streamId;
  }

  async streamMessages(streamId: StreamId): Promise<JSONRPCMessage[]> {
    const entries = (await this.redis.sendCommand(['XRANGE', this.streamKey(streamId), '-', '+'])) as Array<
      [string, string[]]
    > | null;
    const messages: JSONRPCMessage[] = [];
    for (const [, fields] of entries ?? []) {
      const json = fields[fields.indexOf('m') + 1];
      if (json !== undefined) messages.push(parseJson(json) as JSONRPCMessage);
    }
    return messages;
  }

  /** Frees a closed session's streams: those stored under the group `prefix` names (see groupKey). */
  async forgetStreams(prefix: string): Promise<void> {
    const group = this.groupKey(prefix);
    if (!group) return;
    const keys = (await this.redis.sendCommand(['SMEMBERS', group])) as string[];
    await this.redis.sendCommand(['DEL', group, ...keys]);
  }

  private notKept(encoded: string, why: string): EventId {
    this.notKeptCount += 1;
    // One line per ten seconds during an outage, with how many messages it cost so far.
    if (Date.now() - this.lastWarned >= 10_000) {
      this.lastWarned = Date.now();
      this.log.warn(
        { why: why.slice(0, 300), notKept: this.notKeptCount },
        'event store: a message was sent but not kept; its stream cannot resume',
      );
    }
    // An entry id Redis never makes ("u" is not a digit): a client resuming from it is refused, never misled.
    return `${encoded}${SEPARATOR}u${this.notKeptCount}`;
  }

  private streamKey(streamId: StreamId): string {
    return `${this.options.keyPrefix}events:${streamId}`;
  }

  /**
   * Sessions store under `<random>/<stream>` (session-event-store.ts): the part up to the first slash groups a
   * session's streams, so they are freed together when it closes.
   */
  private groupKey(streamId: StreamId): string | undefined {
    const slash = streamId.indexOf('/');
    return slash > 0 ? `${this.options.keyPrefix}event-streams:${streamId.slice(0, slash + 1)}` : undefined;
  }
}

function parseEventId(eventId: EventId): { streamId: StreamId; entry: string } | undefined {
  const at = eventId.lastIndexOf(SEPARATOR);
  if (at <= 0) return undefined;
  const entry = eventId.slice(at + 1);
  if (!/^\d{1,20}-\d{1,20}$/.test(entry)) return undefined;
  const streamId = Buffer.from(eventId.slice(0, at), 'base64url').toString('utf8');
  return streamId ? { streamId, entry } : undefined;
}
