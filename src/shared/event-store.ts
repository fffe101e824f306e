import type { JSONRPCMessage } from '@modelcontextprotocol/server';

export type StreamId = string;
export type EventId = string;

/**
 * Where Streamable HTTP keeps the messages it sent, so a client that lost its SSE stream can
 * reconnect with `Last-Event-ID` and get what it missed. The SDK's `EventStore` shape (any store
 * written for the SDK fits), plus `forgetStreams`, with which a store frees a closed session's events
 * at once instead of waiting for them to expire.
 *
 * One store serves every session: the gateway gives each session a view of it whose stream ids all
 * start with that session's own prefix (see session-event-store.ts), so no session replays another's.
 */
export interface EventStore {
  /** Stores a message sent on `streamId` and names it; the priming event is stored as `{}`. */
  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId>;
  /** The stream an event belongs to, or undefined when the store cannot resume from it. */
  getStreamIdForEventId?(eventId: EventId): Promise<StreamId | undefined>;
  /** Sends, in order, every message of `lastEventId`'s stream stored after it; resolves with the stream. */
  replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId>;
  /** Frees the events of every stream whose id starts with `prefix` (a session that ended). */
  forgetStreams?(prefix: string): void | Promise<void>;
}
