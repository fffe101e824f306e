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
  /**
   * Every message kept of `streamId`, oldest first, its priming record included (empty for a stream it does not
   * know). Without it, a replica that adopts a session cannot tell which of its requests went unanswered.
   */
  streamMessages?(streamId: StreamId): Promise<JSONRPCMessage[]>;
}

/** The member of a stream's priming record that names the requests the stream was opened for. */
export const STREAM_REQUESTS = 'mcp-offload/requests';

/**
 * What a request stream's priming event stores: no JSON-RPC message (a priming event is sent without data, and it is
 * the stream's first event, so no resume replays it), but the ids of the requests the stream answers. A replica that
 * takes a session over from one that died reads it to know which requests no one will answer (streamable-session.ts).
 */
export function primingRecord(requestIds: readonly unknown[]): JSONRPCMessage {
  return { [STREAM_REQUESTS]: requestIds } as unknown as JSONRPCMessage;
}

/** A stored message that is a priming record: `{}` (as the SDK stores it) or primingRecord's. */
export function isPrimingRecord(message: JSONRPCMessage): boolean {
  return !('jsonrpc' in message);
}
