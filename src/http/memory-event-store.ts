import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { isPrimingRecord, type EventId, type EventStore, type StreamId } from '../shared/event-store.js';
import { DEFAULT_EVENT_STORE_LIMITS, type MemoryEventStoreLimits } from '../config/types.js';

export { DEFAULT_EVENT_STORE_LIMITS, type MemoryEventStoreLimits };

/** What an event costs beyond its message: the entry, its id, its place in two maps and an array. */
export const EVENT_OVERHEAD_BYTES = 200;

interface StoredEvent {
  id: EventId;
  seq: number;
  stream: StreamRecord;
  message: JSONRPCMessage;
  bytes: number;
}

interface StreamRecord {
  id: StreamId;
  number: number;
  /** Oldest first; eviction takes from the front. */
  events: StoredEvent[];
  lastSeq: number;
  /** The highest sequence number evicted (0: none): a cursor below it would skip what was lost. */
  evictedThrough: number;
}

const EVENT_ID = /^(\d+)-(\d+)$/;

/**
 * The default event store: bounded, in memory, oldest out first. Event ids are `<stream>-<seq>`, so
 * a client's cursor still resolves after its own event was evicted: it resumes when everything after
 * the cursor is still here, and is refused (never handed a silent gap) when something is not.
 */
export class MemoryEventStore implements EventStore {
  readonly limits: MemoryEventStoreLimits;
  /** Every stored event, oldest first (Map keeps insertion order). */
  private readonly events = new Map<EventId, StoredEvent>();
  private readonly streams = new Map<StreamId, StreamRecord>();
  private readonly byNumber = new Map<number, StreamRecord>();
  /** Streams that have had a response, in the order of their latest one, with its time. */
  private readonly answered = new Map<StreamRecord, number>();
  private nextStreamNumber = 1;
  private totalBytes = 0;

  constructor(
    limits: Partial<MemoryEventStoreLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_EVENT_STORE_LIMITS, ...limits };
  }

  /** The stored messages' estimated size, overhead included. */
  get bytes(): number {
    return this.totalBytes;
  }

  get eventCount(): number {
    return this.events.size;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.expireAnswered();
    const stream = this.streamFor(streamId);
    const seq = ++stream.lastSeq;
    const event: StoredEvent = {
      id: `${stream.number}-${seq}`,
      seq,
      stream,
      message,
      bytes: EVENT_OVERHEAD_BYTES + approximateJsonLength(message),
    };
    this.events.set(event.id, event);
    stream.events.push(event);
    this.totalBytes += event.bytes;
    if (isResponse(message)) {
      this.answered.delete(stream);
      this.answered.set(stream, this.now());
    }
    while (stream.events.length > this.limits.maxEventsPerStream) this.evict(stream.events[0]!);
    while (this.totalBytes > this.limits.maxBytes && this.events.size > 0)
      this.evict(this.events.values().next().value!);
    return event.id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    this.expireAnswered();
    return this.resumable(eventId)?.stream.id;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    this.expireAnswered();
    const cursor = this.resumable(lastEventId);
    if (!cursor) throw new Error(`cannot resume after event ${lastEventId.slice(0, 100)}`);
    // Copied first: sending awaits, and meanwhile new events may arrive and old ones go.
    const after = cursor.stream.events.filter((e) => e.seq > cursor.seq);
    // Priming records only mark where a stream began (and what it answers): no client is sent one.
    for (const event of after) if (!isPrimingRecord(event.message)) await send(event.id, event.message);
    return cursor.stream.id;
  }

  async streamMessages(streamId: StreamId): Promise<JSONRPCMessage[]> {
    return (this.streams.get(streamId)?.events ?? []).map((event) => event.message);
  }

  forgetStreams(prefix: string): void {
    for (const stream of [...this.streams.values()]) if (stream.id.startsWith(prefix)) this.drop(stream);
  }

  /** The stream and position of a cursor from which nothing has been lost, or undefined. */
  private resumable(eventId: EventId): { stream: StreamRecord; seq: number } | undefined {
    const match = EVENT_ID.exec(eventId);
    if (!match) return undefined;
    const stream = this.byNumber.get(Number(match[1]));
    const seq = Number(match[2]);
    if (!stream || seq < 1 || seq > stream.lastSeq || seq < stream.evictedThrough) return undefined;
    return { stream, seq };
  }

  private streamFor(streamId: StreamId): StreamRecord {
    let stream = this.streams.get(streamId);
    if (!stream) {
      stream = { id: streamId, number: this.nextStreamNumber++, events: [], lastSeq: 0, evictedThrough: 0 };
      this.streams.set(streamId, stream);
      this.byNumber.set(stream.number, stream);
    }
    return stream;
  }

  /** Removes an event, which is always its stream's oldest (both orders are insertion orders). */
  private evict(event: StoredEvent): void {
    const { stream } = event;
    stream.events.shift();
    stream.evictedThrough = event.seq;
    this.events.delete(event.id);
    this.totalBytes -= event.bytes;
    // An unanswered stream stays as a record (a few numbers), so its response continues its sequence.
    if (stream.events.length === 0 && this.answered.has(stream)) this.drop(stream);
  }

  private drop(stream: StreamRecord): void {
    for (const event of stream.events) {
      this.events.delete(event.id);
      this.totalBytes -= event.bytes;
    }
    stream.events = [];
    this.streams.delete(stream.id);
    this.byNumber.delete(stream.number);
    this.answered.delete(stream);
  }

  private expireAnswered(): void {
    const cutoff = this.now() - this.limits.keepAnsweredMs;
    for (const [stream, at] of this.answered) {
      if (at > cutoff) break;
      this.drop(stream);
    }
  }
}

function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && ('result' in message || 'error' in message);
}

/**
 * About the length of `value`'s JSON text, without building it: a walk that adds up string lengths
 * and a few characters for everything else. It runs on every message sent, so it must not copy.
 */
export function approximateJsonLength(value: unknown): number {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') total += item.length + 2;
    else if (item === null || typeof item !== 'object') total += 8;
    else if (Array.isArray(item)) {
      total += 2 + item.length;
      for (const element of item) pending.push(element);
    } else {
      total += 2;
      for (const key of Object.keys(item)) {
        total += key.length + 4;
        pending.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return total;
}
