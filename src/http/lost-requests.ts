import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { keyOf } from '../rpc/peer.js';
import { isPrimingRecord, STREAM_REQUESTS } from '../shared/event-store.js';
import type { Id } from '../wire/frame.js';

/**
 * What a request gets, on the stream its client resumes, when no one will answer it: the replica serving it stopped
 * before it answered (see docs/s3-and-replicas.md, "Several replicas"), or its answer was sent while the stream was
 * broken and was too large to keep for the resume.
 */
export const LOST_REQUEST_ERROR = {
  code: -32000,
  message:
    'mcp-offload: the answer to this request is lost: the replica serving it stopped before answering (or the answer ' +
    'was too large to keep for a resumed stream). Send the request again; the session goes on',
};

/**
 * The requests a stream was opened for (its priming record, primingRecord) that none of its kept messages answers.
 * Undefined when the stream's start is not kept (trimmed at maxEventsPerStream, expired, a store that keeps `{}`):
 * then nothing can be said of them.
 */
export function unansweredRequests(messages: readonly JSONRPCMessage[]): Id[] | undefined {
  const first = messages[0] as Record<string, unknown> | undefined;
  if (!first || !isPrimingRecord(first as JSONRPCMessage) || !Array.isArray(first[STREAM_REQUESTS])) return undefined;
  const answered = new Set<unknown>();
  for (const message of messages.slice(1)) {
    const { id, method } = message as { id?: Id; method?: unknown };
    if (method === undefined && id !== undefined) answered.add(keyOf(id));
  }
  return (first[STREAM_REQUESTS] as Id[]).filter((id) => !answered.has(keyOf(id)));
}
