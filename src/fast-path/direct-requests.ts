import { ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type {
  Client,
  JSONRPCMessage,
  JSONRPCRequest,
  RequestId,
  RequestOptions,
  Result,
  Transport,
} from '@modelcontextprotocol/client';
import { relaysDirectly } from './eligibility.js';
import { HttpPoster } from './http-post.js';
import { clientEnvelopeOf } from './modern-wire.js';
import { DecoratedTransport } from '../transports/decorated-transport.js';
import { handedOver } from '../upstreams/after-reads.js';

/** How a relayed request ended: the upstream's result as it sent it, or the error it ended with. */
export type DirectAnswer = { result: Result } | { error: Error };

/**
 * Where a relayed request's answer goes; `atOnce`: it is the upstream's own answer over HTTP, which may be passed on
 * without waiting for the check phase when nothing read before it is still on its way (after-reads.ts). Over stdio,
 * and for the proxy's own failures (a closing connection), it is never set.
 */
export type Settle = (answer: DirectAnswer, atOnce?: boolean) => void;

/** Ids of relayed requests: apart from the SDK client's numbers on the connection, so neither reuses the other's. */
const ID_PREFIX = 'mcp-offload-';

/** The SDK's "no timeout" for a relayed request (upstream.ts keeps its own timer). */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The options of a relayed request that this path honors; with any other, the SDK client sends the request. */
const HONORED_OPTIONS = new Set(['signal', 'timeout', 'allowInputRequired']);

/** The option a 2026-07-28 `tools/call` over HTTP carries its `Mcp-Param-*` headers in (upstreams/param-headers.ts). */
const HEADERS_OPTION = 'headers';

/** Where relayed messages are written: a request's extra HTTP headers go with it to an HTTP poster. */
export interface DirectWire {
  send(message: JSONRPCMessage, headers?: Record<string, string>): Promise<void>;
}

/**
 * The one method this path sends in the 2026-07-28 era: the SDK client would only decode and check its result (which
 * the proxy then takes as the server sent it, raw-results.ts); other methods have era rules of their own there.
 */
const MODERN_METHOD = 'tools/call';

/** The connections whose relayed requests go this way, by their SDK client. */
const routes = new WeakMap<Client, DirectRequests>();

/**
 * Requests the proxy relays to an upstream, written on its transport as they are instead of through the SDK client,
 * whose codec, result-schema validation, timers and listeners cost more per call than the relay hop itself
 * (bench/results.md, small-calls); in the 2026-07-28 era only `tools/call`, with the envelope the SDK's client would
 * put first in its `_meta`, and over HTTP with its `Mcp-Param-*` headers (the `headers` option). Only requests the
 * proxy forwards for a client (sent with an abort signal, see upstream.ts) go this way; the handshake, listing,
 * pings and the upstream's own requests and notifications stay with the SDK client.
 *
 * It behaves as the SDK client's request() does for a relay: the result comes back as the upstream sent it (a
 * relay has no schema to hold it to), an error answer is rejected as the SDK would reject it (carryWireError has
 * already kept its wire form), an abort or a timeout sends notifications/cancelled and rejects with the SDK's
 * timeout error, and a closed connection rejects what is pending with the SDK's connection-closed error.
 */
export class DirectRequests {
  private readonly pending = new Map<RequestId, Settle>();
  private next = 0;
  private closed = false;

  /**
   * `transport`: what the SDK client talks to, so the same outbound hooks see these requests. `envelope`: in the
   * 2026-07-28 era, what the SDK client puts before every message's `_meta` (its protocol version and identity), which
   * these requests and their cancellations carry the same way.
   */
  constructor(
    private readonly transport: DirectWire,
    private readonly onerror: (error: Error) => void,
    private readonly overHttp = false,
    private readonly envelope?: () => Record<string, unknown> | undefined,
  ) {}

  /** Whether a request for `method` sent with these options may go this way. */
  honors(method: string, options: RequestOptions | undefined): boolean {
    if (!options?.signal || (this.envelope && method !== MODERN_METHOD)) return false;
    for (const key in options) {
      if (!HONORED_OPTIONS.has(key) && !(key === HEADERS_OPTION && this.envelope)) return false;
    }
    return true;
  }

  /**
   * Sends a request; `settle` gets its answer, once, unless it is cancelled first. Undefined (nothing sent) when the
   * connection is closed.
   */
  send(
    method: string,
    params: Record<string, unknown> | undefined,
    settle: Settle,
    headers?: Record<string, string>,
  ): RequestId | undefined {
    if (this.closed) return undefined;
    const id = `${ID_PREFIX}${this.next++}`;
    this.pending.set(id, settle);
    const sent = this.enveloped(params);
    const message: JSONRPCMessage = { jsonrpc: '2.0', id, method, ...(sent ? { params: sent } : {}) };
    this.transport.send(message, headers).catch((error: unknown) => {
      if (this.pending.delete(id)) settle({ error: error instanceof Error ? error : new Error(String(error)) });
    });
    return id;
  }

  /** Stops waiting for request `id` and tells the upstream; false when it has already been answered. */
  cancel(id: RequestId, reason: unknown): boolean {
    if (!this.pending.delete(id)) return false;
    this.transport
      .send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: this.enveloped({ requestId: id, reason: String(reason) }),
      })
      .catch((failure: unknown) => this.onerror(new Error(`Failed to send cancellation: ${String(failure)}`)));
    return true;
  }

  /** The params as the SDK client sends them in its era (its `_envelopeOutbound`): the envelope first in `_meta`. */
  private enveloped(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const envelope = this.envelope?.();
    if (!envelope) return params;
    const all = params ?? {};
    return { ...all, _meta: { ...envelope, ...(all._meta as Record<string, unknown> | undefined) } };
  }

  request(method: string, params: Record<string, unknown> | undefined, options: RequestOptions): Promise<Result> {
    const { signal, timeout } = options;
    const headers = (options as { headers?: Record<string, string> }).headers;
    if (signal?.aborted) return Promise.reject(aborted(signal.reason));
    return new Promise<Result>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (answer: DirectAnswer) => {
        signal?.removeEventListener('abort', onAbort);
        clearTimeout(timer);
        if ('result' in answer) resolve(answer.result);
        else reject(answer.error);
      };
      const id = this.send(method, params, settle, headers);
      if (id === undefined) return reject(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
      const cancel = (reason: unknown, error: SdkError) => {
        if (this.cancel(id, reason)) settle({ error });
      };
      const onAbort = () => cancel(signal?.reason, aborted(signal?.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeout !== undefined && timeout < LONGEST_TIMER_MS) {
        const timedOut = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout });
        timer = setTimeout(() => cancel(timedOut, timedOut), timeout);
      }
    });
  }

  /** A message from the upstream: the answers to these requests are taken (undefined); the rest passes on. */
  take(message: JSONRPCMessage): JSONRPCMessage | undefined {
    if (!('id' in message) || 'method' in message || typeof message.id !== 'string') return message;
    const settle = this.pending.get(message.id);
    if (!settle || !('result' in message || 'error' in message)) return message;
    this.pending.delete(message.id);
    if ('result' in message) settle({ result: message.result }, this.overHttp);
    else {
      const { code, message: text, data } = message.error;
      settle({ error: ProtocolError.fromError(code, text, data) }, this.overHttp);
    }
    return undefined;
  }

  /** The connection is gone: nothing pending will be answered. */
  close(): void {
    this.closed = true;
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    const settles = [...this.pending.values()];
    this.pending.clear();
    for (const settle of settles) settle({ error });
  }
}

/**
 * Once an upstream is connected: when relaysDirectly says so, its relayed requests skip the SDK client from now on.
 * The answers are taken where the SDK client would receive them (after the transport decorator's inbound hooks:
 * progress, wire errors), and what is pending fails when the transport closes, before the SDK hears of it.
 */
export function relayDirectly(
  connection: { client: Client; transport: Transport },
  server?: { url: string; headers: Record<string, string> },
): void {
  const { client } = connection;
  const transport = client.transport;
  if (!transport || !relaysDirectly(connection)) return;
  const overHttp = connection.transport instanceof StreamableHTTPClientTransport;
  const modern = client.getProtocolEra() === 'modern';
  const envelope = modern ? clientEnvelopeOf(client) : undefined;
  // Without the SDK's envelope a 2026-07-28 request cannot be written as the SDK writes it: the SDK sends them all.
  if (modern && !envelope) return;
  const poster = server && transport instanceof DecoratedTransport ? httpPoster(connection, server) : undefined;
  // Only the poster writes a 2026-07-28 request's own headers: without it (a connection that authorizes) the SDK does.
  if (modern && overHttp && !poster) return;
  const requests = new DirectRequests(
    poster && transport instanceof DecoratedTransport
      ? {
          send: (message, headers) =>
            isRequest(message)
              ? transport.sendVia(message, (out) => poster.post(out, headers))
              : transport.send(message),
        }
      : { send: (message) => transport.send(message) },
    (error) => client.onerror?.(error),
    overHttp,
    envelope,
  );
  const { onmessage, onclose } = transport;
  transport.onmessage = (message, extra) => {
    const rest = requests.take(message);
    if (!rest) return;
    // Only answers over HTTP may go at once, so only there is what the SDK client still handles worth knowing.
    if (overHttp) handedOver();
    onmessage?.(rest, extra);
  };
  transport.onclose = () => {
    poster?.close();
    requests.close();
    onclose?.();
  };
  routes.set(client, requests);
}

/**
 * Node's own HTTP client for the relayed requests of a Streamable HTTP connection (http-post.ts): what it reads is
 * handed to the SDK's transport's receiver, as if that transport had read it. Not for a connection that authorizes
 * its requests: those stay with the SDK's transport.
 */
function httpPoster(
  connection: { client: Client; transport: Transport },
  server: { url: string; headers: Record<string, string> },
): HttpPoster | undefined {
  const { client, transport: wire } = connection;
  if (!(wire instanceof StreamableHTTPClientTransport)) return undefined;
  // A provider authorizes each request (and refreshes, and retries after a 401): only the SDK's transport does that.
  if ((wire as unknown as { _authProvider?: unknown })._authProvider !== undefined) return undefined;
  const url = new URL(server.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return new HttpPoster(
    url,
    server.headers,
    () => ({ sessionId: wire.sessionId, protocolVersion: client.getNegotiatedProtocolVersion() }),
    (message) => wire.onmessage?.(message),
    (error) => wire.onerror?.(error),
    (message, headers) => wire.send(message, headers ? { headers } : undefined),
  );
}

function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

/** The direct requests of an upstream connection, when its relayed requests skip the SDK client. */
export function directRequestsOf(client: object): DirectRequests | undefined {
  return routes.get(client as Client);
}

/** The relayed request sent directly, if its connection and its options allow it (see raw-messages.ts). */
export function sentDirectly(
  client: object,
  request: { method: string; params?: Record<string, unknown> },
  options: RequestOptions | undefined,
): Promise<Result> | undefined {
  const requests = routes.get(client as Client);
  if (!requests || !requests.honors(request.method, options)) return undefined;
  return requests.request(request.method, request.params, options!);
}

/** What the SDK client rejects an aborted request with. */
function aborted(reason: unknown): SdkError {
  return reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason));
}
