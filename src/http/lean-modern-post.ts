import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/server';
import type { JSONRPCRequest, Notification, Result } from '@modelcontextprotocol/server';
import { isPlainObject } from '../config/pointer.js';
import { isModernLeanRequest } from '../fast-path/eligibility.js';
import { EnvelopeVerdicts } from '../fast-path/envelope-verdicts.js';
import { answerMessage, leanContext } from '../fast-path/lean-call.js';
import { liftEnvelope, serverInfoOf } from '../fast-path/modern-wire.js';
import type { DownstreamSession } from '../gateway/session.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { LazyAnswer } from './lazy-answer.js';
import { messageEvent } from './sse-server-transport.js';
import { stringifyExact } from '../codec/exact-numbers.js';

/** The SDK's keep-alive for a 2026-07-28 POST's SSE answer (DEFAULT_SSE_KEEP_ALIVE_MS; createMcpHandler's default). */
const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE_FRAME = ': keepalive\n\n';
/** The notifications a call's handler sends its client on the call's own stream (progress and log messages). */
const CALL_NOTIFICATIONS = new Set(['notifications/progress', 'notifications/message']);
/** An Mcp-Name header in this form is Base64 the SDK decodes; such a POST is left to it. */
const BASE64_SENTINEL_PREFIX = '=?base64?';
/** RFC 9110 optional whitespace around a field value, which the SDK strips before comparing. */
const HTTP_OWS = /^[\t ]+|[\t ]+$/g;
/** The error the SDK answers with HTTP 400 even when a handler produced it (its LADDER_ERROR_HTTP_STATUS). */
const MISSING_CAPABILITY_STATUS = 400;

/** A 2026-07-28 call: the request as its handler sees it, and the envelope lifted out of its `_meta`. */
export type ModernCall = ReturnType<typeof liftEnvelope>;

/**
 * A 2026-07-28 client's POST of a first-round `tools/call` to any tool (an upstream's of either era, or the proxy's),
 * served on Node's request and response instead of through the SDK's stateless entry (`createMcpHandler` behind
 * `toNodeHandler`), which for every such POST builds a web Request and reads the body back out of it, classifies and
 * validates the message with zod, connects a Server to a per-request transport, pipes a web Response into Node's,
 * and closes the Server again: together 2.5 times what a 2025 client's POST costs the proxy (docs/performance.md).
 *
 * It does the entry's steps for such a call itself, as the SDK 2.4 entry does them: the body's era and the
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers against it (the SDK's own classification, kept per envelope);
 * the envelope lifted out of `_meta` into the handler's context; the answer encoded for the revision
 * (modern-wire.ts), as one JSON body, or as an SSE stream once something else is sent for the call first (the
 * entry's `auto` response mode, lazy-answer.ts), with the SDK's keep-alive; a client that goes away aborts the
 * handler. A 2026-07-28 upstream's answer (input_required and task handles too) is encoded as the SDK's entry encodes
 * what the proxy's handler returns: the SDK does not wrap the proxy's catch-all handler with its own result checks.
 * It takes nothing the SDK would refuse, or treat otherwise: retries (`inputResponses`, `requestState`), repeated or
 * Base64 headers, a progress token or an id the SDK's schema would refuse: those POSTs go to the SDK as before. A call
 * the relay lane takes (gateway/relay-lane.ts) skips the session's handler as well.
 */
export class ModernLeanPosts {
  /** The SDK's verdicts on the envelopes seen (whether each classifies as a 2026-07-28 request it serves). */
  private readonly verdicts = new EnvelopeVerdicts(classifiedModern);

  /**
   * The call a POST carries, as its handler sees it and its envelope apart, when it is served here; undefined leaves
   * the POST to the SDK's entry.
   */
  callOf(req: IncomingMessage, body: unknown): ModernCall | undefined {
    if (!isPlainObject(body) || body.jsonrpc !== '2.0' || !isModernLeanRequest(body as never)) return undefined;
    const request = body as unknown as JSONRPCRequest;
    if (typeof request.id === 'number' && !Number.isSafeInteger(request.id)) return undefined;
    if (!isJsonContentType(req.headers['content-type'] ?? null)) return undefined;
    const params = request.params as { name?: unknown; _meta: Record<string, unknown> };
    const version = params._meta[PROTOCOL_VERSION_META_KEY];
    if (typeof version !== 'string' || !MODERN_PROTOCOL_VERSIONS.includes(version)) return undefined;
    const { headers } = req;
    if (owsStripped(headers['mcp-protocol-version']) !== version) return undefined;
    if (owsStripped(headers['mcp-method']) !== 'tools/call') return undefined;
    const name = owsStripped(headers['mcp-name']);
    if (name === undefined || name !== params.name || name.startsWith(BASE64_SENTINEL_PREFIX)) return undefined;
    const { progressToken } = params._meta;
    if (progressToken !== undefined && typeof progressToken !== 'string' && !Number.isSafeInteger(progressToken))
      return undefined;
    const call = liftEnvelope(request);
    return this.verdicts.holds(call.envelope) ? call : undefined;
  }

  /**
   * Serves `call` (from callOf) with `session`, a session of its own, closed once the call is answered or its client
   * has gone away: through the session's relay lane when it takes the call (gateway/relay-lane.ts: no progress token,
   * no log level asked, a stdio or Streamable HTTP upstream whose requests go directly), else through its handler.
   */
  serve({ request, envelope }: ModernCall, res: ServerResponse, session: DownstreamSession): void {
    const answer = new LazyAnswer(res, undefined);
    let state: 'open' | 'answered' | 'gone' = 'open';
    const keepAlive: { timer?: NodeJS.Timeout } = {};
    const finish = (outcome: { result: Result } | { error: unknown }) => {
      clearInterval(keepAlive.timer);
      if (state === 'open') {
        state = 'answered';
        const message = answerMessage(request.id, outcome, { serverInfo: serverInfoOf(session.server) });
        const code = 'error' in message ? message.error.code : undefined;
        const status = code === ProtocolErrorCode.MissingRequiredClientCapability ? MISSING_CAPABILITY_STATUS : 200;
        if (!answer.json(stringifyExact(message), status)) {
          answer.enqueue(messageEvent(message));
          answer.end();
        }
      }
      void session.close();
    };
    // As the SDK's per-request transport closes when its client goes away: the call stops, nothing is sent.
    let stop: (reason: unknown) => void = () => undefined;
    res.once('close', () => {
      if (state !== 'open') return;
      state = 'gone';
      stop(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
      void session.close();
    });
    const lane = session.relayCall(request, finish, envelope);
    if (lane) {
      stop = lane;
      return;
    }
    const controller = new AbortController();
    stop = (reason) => controller.abort(reason);
    keepAlive.timer = setInterval(() => answer.whileStreaming(KEEP_ALIVE_FRAME), KEEP_ALIVE_MS);
    keepAlive.timer.unref();
    const ctx = leanContext({
      request,
      signal: controller.signal,
      envelope,
      wire: {
        send: (asked) =>
          Promise.reject(
            new SdkError(SdkErrorCode.NotConnected, `${asked.method} cannot be sent to a 2026-07-28 client`),
          ),
        notify: async (notification: Notification) => {
          if (!CALL_NOTIFICATIONS.has(notification.method)) throw unsupported(notification.method);
          if (notification.method === 'notifications/message' && !session.server.getCapabilities().logging)
            throw new SdkError(SdkErrorCode.CapabilityNotSupported, 'Server does not support logging');
          if (state === 'open') answer.enqueue(messageEvent({ jsonrpc: '2.0', ...notification }));
        },
      },
    });
    Promise.resolve()
      .then(() => session.serveLean(request, ctx))
      .then(
        (result) => finish({ result }),
        (error: unknown) => finish({ error }),
      );
  }
}

/**
 * Whether the SDK's entry classifies a `tools/call` with this envelope, sent with headers that agree with it, as a
 * 2026-07-28 request it serves: its own classification, so its verdict stays its own.
 */
function classifiedModern(envelope: Record<string, unknown>): boolean {
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: String(envelope[PROTOCOL_VERSION_META_KEY]),
    mcpMethodHeader: 'tools/call',
    body: { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: '', _meta: envelope } },
  });
  return route.kind === 'modern' && route.messageKind === 'request';
}

/** A single header's value without the optional whitespace around it; undefined when absent or repeated. */
function owsStripped(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value.replace(HTTP_OWS, '') : undefined;
}

function unsupported(method: string): SdkError {
  return new SdkError(
    SdkErrorCode.MethodNotSupportedByProtocolVersion,
    `Notification '${method}' is not sent on a call's own stream`,
  );
}
