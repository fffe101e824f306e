import type { IncomingMessage } from 'node:http';
import { SdkErrorCode, SdkHttpError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { Cancellation, type Signal } from '../rpc/cancellation.js';
import type { Frame, Id } from '../wire/frame.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../wire/lines.js';
import type { SendOptions, Wire } from '../wire/wire.js';
import { HttpAuth, type BearerChallenge } from './http-auth.js';
import { connectionHeaders, envelopeVersion, postHeaders, type ConnectionState } from './http-headers.js';
import { DEFAULT_RECONNECTION, ReopenedStreams, type ReconnectionOptions, type StreamSource } from './http-streams.js';
import { acceptWith, HttpEndpoint, mediaType, readText, unfollowedRedirect } from './http-request.js';
import {
  errorAnswerIn,
  failureFrame,
  idKey,
  lowerCased,
  postError,
  readJsonAnswer,
  unexpectedContent,
  whenWritten,
} from './http-wire.js';

export interface StreamableHttpOptions {
  url: string | URL;
  /** Headers of every request (a server's configured `headers`). */
  headers?: Record<string, string>;
  /** OAuth, as the SDK's transports do it with this provider. */
  auth?: { provider: OAuthClientProvider };
  /** A session to go on with (a reconnect that keeps the server's session). */
  sessionId?: string;
  protocolVersion?: string;
  maxMessageBytes?: number;
  reconnection?: Partial<ReconnectionOptions>;
  /** How long close() waits for the server to answer its DELETE. */
  deleteTimeoutMs?: number;
}

/** One message on its way: its POST, and for a request, what it takes until its answer came. */
interface Exchange {
  frame: Frame;
  /** A request's id. */
  id?: Id;
  /** A 2026-07-28 request (its `_meta` envelope names the version). */
  modern: boolean;
  extra: Record<string, string>;
  /** The POST went with a session id (a 404 then means the session is gone). */
  sentSession: boolean;
  answered: boolean;
  /** Ends this exchange alone (a 2026-07-28 request's cancellation), or with the wire (end()). */
  cancellation: Cancellation;
  /** The last event id of its stream, to resume after. */
  lastEventId?: string;
  onpause?: (retryMs: number | undefined, resume?: () => void) => void;
}

/**
 * An upstream MCP server over Streamable HTTP (2025-03-26 to 2026-07-28), on node:http: each message is POSTed as
 * the bytes of its frame, and every message of the answer (a JSON body, or the events of an SSE stream) becomes a
 * frame as it came, long literals cut out (json-body.ts, sse-reader.ts). Answers go to `onframe`; a request whose
 * answer cannot come (an HTTP error, a stream that ended for good) is answered with an error frame of code -32000,
 * so the caller correlating answers (relay/peer.ts) is never left waiting.
 *
 * What the SDK's StreamableHTTPClientTransport does, this does as a server sees it: the same headers (session id,
 * protocol version, the standard headers of a 2026-07-28 request, the extra headers of a message but never over the
 * reserved ones), a request's stream resumed with GET and Last-Event-ID, the standalone GET stream (`openStream`),
 * redirects within the origin, OAuth (http-auth.ts). A 404 to a request sent with the session id means the session
 * is gone: the wire closes, and the caller connects anew. A 2026-07-28 request is cancelled by closing its stream,
 * as that revision has it: the `notifications/cancelled` the caller sends for it ends the exchange and is not POSTed.
 */
export class StreamableHttpWire implements Wire {
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The negotiated version, sent as MCP-Protocol-Version (a 2026-07-28 request sends its own). */
  protocolVersion?: string;
  readonly url: URL;

  private session?: string;
  private readonly configured: Record<string, string>;
  private readonly http = new HttpEndpoint();
  private readonly auth: HttpAuth;
  private readonly lifetime = new AbortController();
  private readonly streams: ReopenedStreams;
  private readonly maxBytes: number;
  private readonly inflight = new Map<unknown, Exchange>();
  private listening = false;
  /** The POST of `notifications/initialized` until answered: the standalone GET waits for it, as the SDK's does. */
  private initialized: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: StreamableHttpOptions) {
    this.url = new URL(options.url);
    this.configured = lowerCased(options.headers);
    this.auth = new HttpAuth(this.url, options.auth?.provider, options.headers ?? {});
    this.session = options.sessionId;
    this.protocolVersion = options.protocolVersion;
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const source: StreamSource = {
      open: (lastEventId, signal) => this.getStream(lastEventId, signal),
      onerror: this.reportError,
      maxBytes: this.maxBytes,
    };
    this.streams = new ReopenedStreams(source, { ...DEFAULT_RECONNECTION, ...options.reconnection });
  }

  /** The session the server assigned in its answer to `initialize`. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** The last Bearer challenge of a 401 (what a login needs to know, for a server without a provider too). */
  get lastChallenge(): BearerChallenge | undefined {
    return this.auth.lastChallenge;
  }

  /**
   * The last authorization failure (see http-auth.ts): an UnauthorizedError when a browser is needed, what the
   * provider or `auth()` threw, or the SDK's HTTP error of a 401 (no provider, or 401 again after a new token) or of
   * a 403 after a step-up. The request it failed got an error frame (-32000) with its message.
   */
  get authFailure(): Error | undefined {
    return this.auth.failure;
  }

  /** Resolves once the message is written; rejects when the wire is closed or the server cannot be reached. */
  send(frame: Frame, options: SendOptions = {}): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the connection is closed'));
    if (this.cancelsStream(frame)) return Promise.resolve();
    // Its own Cancellation, cancelled by a cancel or when the wire ends (end()): an AbortController a call, and its
    // listener on the request, made Node's EventTarget part of every call's work (docs/performance.md).
    const exchange: Exchange = {
      frame,
      ...(frame.kind === 'request' ? { id: frame.id as Id } : {}),
      modern: envelopeVersion(frame) !== undefined,
      extra: options.headers ?? {},
      sentSession: false,
      answered: false,
      cancellation: new Cancellation(),
      ...(options.onpause ? { onpause: options.onpause } : {}),
    };
    if (exchange.id !== undefined) this.inflight.set(idKey(exchange.id), exchange);
    return whenWritten(
      (written) => {
        const posted = this.post(exchange, written);
        if (frame.method === 'notifications/initialized') this.initialized = posted.catch(() => undefined);
        return posted;
      },
      (error) => this.failed(exchange, error),
      (error) => error === this.auth.failure,
    ).catch((error: unknown) => {
      // Not sent at all: the caller learns it from the rejection, and the request is not in flight.
      this.settled(exchange);
      throw error;
    });
  }

  /**
   * Opens the standalone GET stream for the server's own messages (2025 sessions); resolves once it is open, or when
   * there is none: the server offers none (405), or opening it failed, which goes to `onerror` (as with the SDK, a
   * connection lives on without it). It is reopened with Last-Event-ID when it drops.
   */
  async openStream(): Promise<void> {
    if (this.closed || this.listening) return;
    this.listening = true;
    // A server may take the GET only once the session is initialized; sent at once, it could arrive first.
    await this.initialized;
    if (this.closed) return void (this.listening = false);
    let res: IncomingMessage | undefined;
    try {
      res = await this.getStream(undefined);
    } catch (error) {
      this.reportError(error instanceof Error ? error : new Error(String(error)));
    }
    if (!res) return void (this.listening = false);
    void this.streams
      .listen(res, this.lifetime.signal, (frame) => this.deliver(frame))
      .finally(() => (this.listening = false));
  }

  /** Ends the session (DELETE, when the server gave one), the open streams, then tells `onclose`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.session) await this.deleteSession();
    this.end();
  }

  private async post(exchange: Exchange, written: () => void): Promise<void> {
    const res = await this.postRequest(exchange, written);
    written();
    const status = res.statusCode ?? 0;
    const ok = status >= 200 && status < 300;
    // The spec assigns the session id on the answer to initialize; a handshake without one clears a stale one.
    if (exchange.frame.method === 'initialize' && exchange.id !== undefined && ok) {
      const session = res.headers['mcp-session-id'];
      this.session = (Array.isArray(session) ? session[0] : session) || undefined;
    }
    if (status === 404 && exchange.sentSession) {
      res.resume();
      return this.sessionGone();
    }
    if (!ok) return this.refused(exchange, res);
    if (status === 202 || exchange.id === undefined) return void res.resume();
    const type = mediaType(res.headers['content-type']);
    if (type === 'application/json') {
      await readJsonAnswer(res, (frame) => this.received(exchange, frame), this.reportError, this.maxBytes);
      if (!exchange.answered) throw new Error('the upstream answered with JSON that holds no answer to the request');
      return;
    }
    if (type === 'text/event-stream')
      return this.streams.follow(exchange, res, (frame) => this.received(exchange, frame));
    res.resume();
    throw unexpectedContent(res);
  }

  /** The POST of a message, retried after an authorization; its body is let go once an answer came. */
  private postRequest(exchange: Exchange, written: () => void): Promise<IncomingMessage> {
    return this.auth.request(this.http, {
      method: 'POST',
      url: this.url,
      headers: (token) => {
        const headers = postHeaders(this.connection(token), exchange.frame, exchange.extra);
        exchange.sentSession = headers['mcp-session-id'] !== undefined;
        return headers;
      },
      body: exchange.frame.chunks(),
      signal: exchange.cancellation,
      onWritten: written,
    });
  }

  /** An HTTP error answered to a POST: a JSON-RPC error for the request in its body is the answer, else it fails. */
  private async refused(exchange: Exchange, res: IncomingMessage): Promise<void> {
    const text = await readText(res);
    const status = res.statusCode ?? 0;
    if (exchange.id !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403) {
      const answer = errorAnswerIn(text, exchange.id);
      if (answer) return this.received(exchange, answer);
    }
    const error = postError(res, text, unfollowedRedirect(this.url, res));
    if (status === 401) this.auth.failure = error;
    throw error;
  }

  /**
   * GET for an SSE stream (standalone, or a request's resumed with `lastEventId`): the open stream, or undefined
   * when there is none to be had (405: the server offers none; 404: the session is gone, and the wire closed).
   */
  private async getStream(
    lastEventId: string | undefined,
    signal: Signal = this.lifetime.signal,
  ): Promise<IncomingMessage | undefined> {
    let sentSession = false;
    const res = await this.auth.request(this.http, {
      method: 'GET',
      url: this.url,
      headers: (token) => {
        const headers = connectionHeaders(this.connection(token));
        headers.accept = acceptWith(headers.accept, 'text/event-stream');
        if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
        sentSession = headers['mcp-session-id'] !== undefined;
        return headers;
      },
      signal,
    });
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return res;
    res.resume();
    if (status === 404 && sentSession) return void this.sessionGone();
    if (status === 405) return undefined;
    const reason = unfollowedRedirect(this.url, res) ?? res.statusMessage ?? '';
    throw new SdkHttpError(SdkErrorCode.ClientHttpFailedToOpenStream, `Failed to open SSE stream: ${reason}`, {
      status,
      statusText: res.statusMessage ?? '',
    });
  }

  private connection(token: string | undefined): ConnectionState {
    return {
      configured: this.configured,
      ...(token ? { token } : {}),
      ...(this.session ? { sessionId: this.session } : {}),
      ...(this.protocolVersion ? { protocolVersion: this.protocolVersion } : {}),
    };
  }

  private received(exchange: Exchange, frame: Frame): void {
    if (frame.kind === 'response' && idKey(frame.id) === idKey(exchange.id)) {
      exchange.answered = true;
      this.settled(exchange);
    }
    this.deliver(frame);
  }

  private deliver(frame: Frame): void {
    if (this.closed) return frame.blobs.dispose();
    this.onframe?.(frame);
  }

  private failed(exchange: Exchange, error: unknown): void {
    this.settled(exchange);
    if (this.closed || exchange.cancellation.aborted || exchange.answered) return;
    if (exchange.id !== undefined) this.deliver(failureFrame(exchange.id, error));
    else this.reportError(error instanceof Error ? error : new Error(String(error)));
  }

  private settled(exchange: Exchange): void {
    if (exchange.id !== undefined && this.inflight.get(idKey(exchange.id)) === exchange) {
      this.inflight.delete(idKey(exchange.id));
    }
  }

  /** A 2026-07-28 request is cancelled by closing its stream: its `notifications/cancelled` is not sent. */
  private cancelsStream(frame: Frame): boolean {
    if (frame.method !== 'notifications/cancelled' || frame.kind !== 'notification') return false;
    const exchange = this.inflight.get(idKey(frame.params.requestId));
    if (!exchange?.modern) return false;
    this.settled(exchange);
    exchange.cancellation.cancel(new Error('cancelled'));
    return true;
  }

  /** Tells the server the session is over; a server that does not end sessions so answers 405. */
  private async deleteSession(): Promise<void> {
    try {
      const res = await this.http.request({
        method: 'DELETE',
        url: this.url,
        headers: connectionHeaders(this.connection(await this.auth.token().catch(() => undefined))),
        signal: AbortSignal.timeout(this.options.deleteTimeoutMs ?? 5000),
      });
      res.resume();
      const status = res.statusCode ?? 0;
      const statusText = res.statusMessage ?? '';
      if ((status < 200 || status >= 300) && status !== 405) {
        const message = `Failed to terminate session: ${statusText}`;
        this.onerror?.(
          new SdkHttpError(SdkErrorCode.ClientHttpFailedToTerminateSession, message, { status, statusText }),
        );
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
    this.session = undefined;
  }

  /** The server no longer knows the session: everything ends, and the caller reconnects. */
  private sessionGone(): void {
    if (this.closed) return;
    this.closed = true;
    this.session = undefined;
    this.end();
  }

  private end(): void {
    const reason = new Error('the connection is closed');
    this.lifetime.abort(reason);
    for (const exchange of this.inflight.values()) exchange.cancellation.cancel(reason);
    this.http.destroy();
    this.inflight.clear();
    this.onclose?.();
  }

  private readonly reportError = (error: Error): void => {
    if (!this.closed) this.onerror?.(error);
  };
}
