import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { EventId, EventStore, StreamId } from '../shared/event-store.js';

/** One session's view of the shared event store, and how to free what it stored. */
export interface SessionEventStore {
  view: EventStore;
  /** Frees the session's events (it ended: nobody can resume them any more). */
  forget(): Promise<void>;
  /** The session's corner: a replica that adopts the session (src/shared/) takes the same one. */
  prefix: string;
}

/**
 * Gives a session its own corner of a shared store: its stream ids are stored with a random prefix
 * of its own, and an event id whose stream lacks that prefix, whoever sends it, resumes nothing. A
 * store with `getStreamIdForEventId` is asked before anything is replayed (the SDK answers 400); one
 * without it replays into a buffer that is only sent on when the stream proves to be this session's.
 */
export function sessionEventStore(store: EventStore, prefix = `${randomUUID()}/`): SessionEventStore {
  const own = (streamId: StreamId | undefined): StreamId | undefined =>
    streamId?.startsWith(prefix) ? streamId.slice(prefix.length) : undefined;

  const view: EventStore = {
    storeEvent: (streamId, message) => store.storeEvent(prefix + streamId, message),
    replayEventsAfter: async (lastEventId, { send }) => {
      if (store.getStreamIdForEventId) {
        if (own(await store.getStreamIdForEventId(lastEventId)) === undefined) throw notOurs(lastEventId);
        return own(await store.replayEventsAfter(lastEventId, { send })) ?? throwNotOurs(lastEventId);
      }
      const replayed: Array<[EventId, JSONRPCMessage]> = [];
      const streamId = own(
        await store.replayEventsAfter(lastEventId, { send: async (id, message) => void replayed.push([id, message]) }),
      );
      if (streamId === undefined) throw notOurs(lastEventId);
      for (const [id, message] of replayed) await send(id, message);
      return streamId;
    },
  };
  const lookup = store.getStreamIdForEventId?.bind(store);
  if (lookup) view.getStreamIdForEventId = async (eventId) => own(await lookup(eventId));
  const messages = store.streamMessages?.bind(store);
  if (messages) view.streamMessages = (streamId) => messages(prefix + streamId);
  return { view, forget: async () => store.forgetStreams?.(prefix), prefix };
}

const notOurs = (eventId: EventId): Error => new Error(`event ${eventId.slice(0, 100)} is not one of this session's`);

function throwNotOurs(eventId: EventId): never {
  throw notOurs(eventId);
}
