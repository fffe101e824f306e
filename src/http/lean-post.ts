import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, isJsonContentType } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { LazyAnswer, STREAM_AFTER_MS } from './lazy-answer.js';
import { stringifyExact } from '../codec/exact-numbers.js';

/** An encoder that leaves text as text: Node's response takes strings, so the SDK's TextEncoder step is not needed. */
const TEXT_AS_IS = { encode: (text: string) => text };

/**
 * The parts of the SDK's WebStandardStreamableHTTPServerTransport (2.4) a POST served here registers with, so that
 * everything the session then sends for the request (progress, log messages, an upstream's questions related to it,
 * the answer) takes the SDK's own `send`: the same event ids, event store, SSE framing and end of stream.
 */
interface WebTransportInternals {
  _streamMapping: Map<string, { controller?: unknown; encoder?: unknown; cleanup: () => void }>;
  _requestToStreamMapping: Map<RequestId, string>;
  _supportedProtocolVersions: string[];
  _closed: boolean;
  _initialized: boolean;
  _scopeChallengeResolver?: unknown;
  writePrimingEvent(controller: unknown, encoder: unknown, streamId: string, version: string): Promise<void>;
  startKeepAlive(controller: unknown, encoder: unknown): NodeJS.Timeout | undefined;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void>;
}

/** What a session offers a POST served here: whether its lean dispatcher takes the request (lean-dispatch.ts). */
export interface LeanTaker {
  wouldTake(message: unknown): message is JSONRPCRequest;
}

/**
 * A legacy Streamable HTTP session's POST of one request the session's lean dispatcher takes (a plain tools/call,
 * prompts/get or resources/read), served on Node's request and response instead of through the SDK's Node adapter,
 * which turns every POST into a web Request, validates the message with zod and pipes a web ReadableStream back into
 * the response: together more than the relay hop costs (docs/performance.md, issue #13 item 5). The stream it opens
 * is registered in the SDK transport's own tables, so what is sent on it is written by the SDK as before (the same
 * event ids, event store and framing); an answer that is the first thing sent for its request goes out as JSON
 * instead (jsonAnswers below).
 *
 * It checks what the SDK checks before it would accept such a POST (Accept, Content-Type, session, protocol
 * version) and takes nothing the SDK would refuse or treat specially: those POSTs, batches, notifications and
 * responses go to the SDK as before (false). When the SDK's transport does not have the internals above (another
 * SDK version), nothing is taken.
 */
export function servedLean(
  transport: NodeStreamableHTTPServerTransport,
  taker: LeanTaker,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): boolean {
  const web = internalsOf(transport);
  if (!web || web._closed || !web._initialized || web._scopeChallengeResolver !== undefined) return false;
  if (!taker.wouldTake(body)) return false;
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!isJsonContentType(req.headers['content-type'] ?? null)) return false;
  if (req.headers['mcp-session-id'] !== transport.sessionId) return false;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !web._supportedProtocolVersions.includes(version)))
    return false;
  open(web, transport.sessionId, res, body, version ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
  return true;
}

/** A lean POST's stream while its answer may still go out as JSON (see jsonAnswers). */
interface LeanStream {
  answer: LazyAnswer;
  /** Something other than the answer was sent for the request: the answer follows it on the stream. */
  others: boolean;
  /** The answer went as JSON: the SDK's tables and the stream's timers let go of it. */
  finish(): void;
}

function open(
  web: WebTransportInternals,
  sessionId: string | undefined,
  res: ServerResponse,
  request: JSONRPCRequest,
  version: string,
): void {
  const streamId = randomUUID();
  const streams = jsonAnswers(web);
  const timers: { keepAlive?: NodeJS.Timeout; opening?: NodeJS.Timeout } = {};
  const answer = new LazyAnswer(res, sessionId);
  const stop = () => {
    clearInterval(timers.keepAlive);
    clearTimeout(timers.opening);
    if (streams.get(request.id) === lean) streams.delete(request.id);
  };
  const entry = {
    controller: answer,
    encoder: TEXT_AS_IS,
    cleanup: () => {
      stop();
      web._streamMapping.delete(streamId);
      answer.end();
    },
  };
  /** The stream's timers stop, and the SDK's table of streams lets go of it unless it has a newer one there. */
  const release = () => {
    stop();
    if (web._streamMapping.get(streamId) === entry) web._streamMapping.delete(streamId);
  };
  const lean: LeanStream = {
    answer,
    others: false,
    finish: () => {
      release();
      if (web._requestToStreamMapping.get(request.id) === streamId) web._requestToStreamMapping.delete(request.id);
    },
  };
  // A client that goes away leaves the answer to the event store (for its reconnect), as the SDK's stream does.
  res.once('close', release);
  web._streamMapping.set(streamId, entry);
  web._requestToStreamMapping.set(request.id, streamId);
  streams.set(request.id, lean);
  web.onmessage?.(request, {});
  if (web._streamMapping.get(streamId) !== entry) return;
  timers.keepAlive = web.startKeepAlive(answer, TEXT_AS_IS);
  // A call that is not answered at once gets the stream the SDK opens with, priming event included, so its client
  // can resume it; one answered within the delay has nothing to resume (lazy-answer.ts).
  const opening = setTimeout(() => {
    if (!answer.openStream()) return;
    web.writePrimingEvent(answer, TEXT_AS_IS, streamId, version).catch(() => {
      // The SDK answers a failing event store with an error response; the stream is open, so it ends.
      if (web._streamMapping.get(streamId) === entry) entry.cleanup();
    });
  }, STREAM_AFTER_MS);
  opening.unref();
  timers.opening = opening;
}

/** The lean streams of each transport whose answers may still go out as JSON, by request id. */
const leanStreams = new WeakMap<WebTransportInternals, Map<RequestId, LeanStream>>();

/**
 * The answer to a lean POST that is the first thing sent for it goes out as JSON from the transport's `send`, at
 * once: past the SDK's `send`, which would first keep it in the event store (an await, and an event nobody can resume
 * from a JSON body) and frame it as SSE. Everything else takes the SDK's `send` as before. Installed once per
 * transport, on the instance (the SDK's Node transport sends through it).
 */
function jsonAnswers(web: WebTransportInternals): Map<RequestId, LeanStream> {
  const known = leanStreams.get(web);
  if (known) return known;
  const streams = new Map<RequestId, LeanStream>();
  leanStreams.set(web, streams);
  const send = web.send.bind(web);
  web.send = (message, options) => {
    const answered = 'id' in message && ('result' in message || 'error' in message);
    const id = answered ? message.id : options?.relatedRequestId;
    const lean = id === undefined ? undefined : streams.get(id);
    if (lean) {
      if (answered && !lean.others && lean.answer.json(stringifyExact(message))) {
        lean.finish();
        return Promise.resolve();
      }
      lean.others = true;
    }
    return send(message, options);
  };
  return streams;
}

function internalsOf(transport: NodeStreamableHTTPServerTransport): WebTransportInternals | undefined {
  const web = (transport as unknown as { _webStandardTransport?: Partial<WebTransportInternals> })
    ._webStandardTransport;
  if (
    !web ||
    !(web._streamMapping instanceof Map) ||
    !(web._requestToStreamMapping instanceof Map) ||
    !Array.isArray(web._supportedProtocolVersions) ||
    typeof web.writePrimingEvent !== 'function' ||
    typeof web.startKeepAlive !== 'function' ||
    typeof web.send !== 'function'
  )
    return undefined;
  return web as WebTransportInternals;
}
