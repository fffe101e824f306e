import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, isJsonContentType } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId } from '@modelcontextprotocol/server';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';

/** Where the SDK's web-standard transport writes one POST's SSE stream: its ReadableStream controller, here ours. */
interface StreamSink {
  enqueue(chunk: string): void;
}

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
}

/** What a session offers a POST served here: whether its lean dispatcher takes the request (lean-dispatch.ts). */
export interface LeanTaker {
  wouldTake(message: unknown): message is JSONRPCRequest;
}

/**
 * A legacy Streamable HTTP session's POST of one request the session's lean dispatcher takes (a plain tools/call),
 * served on Node's request and response instead of through the SDK's Node adapter, which turns every POST into a web
 * Request, validates the message with zod and pipes a web ReadableStream back into the response: together more than
 * the relay hop costs (docs/performance.md, issue #13 item 5). The stream it opens is registered in the SDK
 * transport's own tables, so what is sent on it is written by the SDK exactly as before, byte for byte.
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
  void open(web, transport.sessionId, res, body, version ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
  return true;
}

async function open(
  web: WebTransportInternals,
  sessionId: string | undefined,
  res: ServerResponse,
  request: JSONRPCRequest,
  version: string,
): Promise<void> {
  const streamId = randomUUID();
  let keepAlive: NodeJS.Timeout | undefined;
  const sink: StreamSink = { enqueue: (chunk) => void res.write(chunk) };
  const entry = {
    controller: sink,
    encoder: TEXT_AS_IS,
    cleanup: () => {
      clearInterval(keepAlive);
      web._streamMapping.delete(streamId);
      res.end();
    },
  };
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    ...(sessionId !== undefined ? { 'mcp-session-id': sessionId } : {}),
  });
  // A client that goes away leaves the answer to the event store (for its reconnect), as the SDK's stream does.
  res.once('close', () => {
    clearInterval(keepAlive);
    if (web._streamMapping.get(streamId) === entry) web._streamMapping.delete(streamId);
  });
  web._streamMapping.set(streamId, entry);
  web._requestToStreamMapping.set(request.id, streamId);
  try {
    await web.writePrimingEvent(sink, TEXT_AS_IS, streamId, version);
  } catch {
    // The SDK answers a failing event store with an error response; the headers here are out, so the stream ends.
    entry.cleanup();
    return;
  }
  web.onmessage?.(request, {});
  if (web._streamMapping.get(streamId) === entry) keepAlive = web.startKeepAlive(sink, TEXT_AS_IS);
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
    typeof web.startKeepAlive !== 'function'
  )
    return undefined;
  return web as WebTransportInternals;
}
