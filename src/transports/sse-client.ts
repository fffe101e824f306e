import type { IncomingMessage } from 'node:http';
import { SdkError, SdkErrorCode, SdkHttpError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import type { Frame, Id } from '../wire/frame.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../wire/lines.js';
import type { Wire } from '../wire/wire.js';
import { HttpAuth, type BearerChallenge } from './http-auth.js';
import { HttpEndpoint, mediaType, readText, unfollowedRedirect } from './http-request.js';
import { failureFrame, lowerCased, postError, readEventStream, whenWritten } from './http-wire.js';

export interface SseOptions {
  url: string | URL;
  /** Headers of every request (a server's configured `headers`). */
  headers?: Record<string, string>;
  auth?: { provider: OAuthClientProvider };
  maxMessageBytes?: number;
}

/**
 * An upstream MCP server over the deprecated HTTP+SSE transport (2024-11-05): a GET opens the event stream, whose
 * `endpoint` event names where to POST; every `message` event is a frame, long literals cut out (sse-reader.ts).
 * As the SDK's SSEClientTransport: an endpoint of another origin is refused, OAuth as in http-auth.ts, and a POST
 * the server refuses fails (a request gets an error frame of code -32000 in place of its answer).
 *
 * Unlike the SDK's EventSource, a stream that ends is not reopened: the server would start a new session on it, one
 * the client never initialized, so the wire closes and the caller connects anew.
 */
export class SseWire implements Wire {
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Sent as MCP-Protocol-Version, as the SDK's transport sends it once negotiated. */
  protocolVersion?: string;
  readonly url: URL;

  private postTo?: URL;
  private readonly configured: Record<string, string>;
  private readonly http = new HttpEndpoint();
  private readonly auth: HttpAuth;
  private readonly lifetime = new AbortController();
  private readonly maxBytes: number;
  private started = false;
  private closed = false;

  constructor(options: SseOptions) {
    this.url = new URL(options.url);
    this.configured = lowerCased(options.headers);
    this.auth = new HttpAuth(this.url, options.auth?.provider, options.headers ?? {});
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** Where messages are POSTed, once the server said. */
  get endpoint(): URL | undefined {
    return this.postTo;
  }

  get lastChallenge(): BearerChallenge | undefined {
    return this.auth.lastChallenge;
  }

  /** The last authorization failure (see StreamableHttpWire.authFailure). */
  get authFailure(): Error | undefined {
    return this.auth.failure;
  }

  /** Opens the stream; resolves once the server named its endpoint, rejects on an HTTP error (status in `data`). */
  async start(): Promise<void> {
    if (this.started) throw new Error('SseWire already started');
    this.started = true;
    const res = await this.auth.request(this.http, {
      method: 'GET',
      url: this.url,
      headers: (token) => ({ ...this.headers(token), accept: 'text/event-stream' }),
      signal: this.lifetime.signal,
    });
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const text = await readText(res);
      const reason = unfollowedRedirect(this.url, res) ?? `Non-200 status code (${status})`;
      const error = new SdkHttpError(SdkErrorCode.ClientHttpFailedToOpenStream, `SSE error: ${reason}`, {
        status,
        statusText: res.statusMessage ?? '',
        text,
      });
      if (status === 401) this.auth.failure = error;
      throw error;
    }
    if (mediaType(res.headers['content-type']) !== 'text/event-stream') {
      res.resume();
      throw new Error(
        `SSE error: Invalid content type, expected "text/event-stream" (got ${res.headers['content-type']})`,
      );
    }
    return new Promise((resolve, reject) => {
      void this.read(res, resolve, reject);
    });
  }

  send(frame: Frame): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the connection is closed'));
    const endpoint = this.postTo;
    if (!endpoint) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
    const id = frame.kind === 'request' ? (frame.id as Id) : undefined;
    return whenWritten(
      async (written) => {
        const res = await this.auth.request(this.http, {
          method: 'POST',
          url: endpoint,
          headers: (token) => ({ ...this.headers(token), 'content-type': 'application/json' }),
          body: frame.chunks(),
          signal: this.lifetime.signal,
          onWritten: written,
        });
        written();
        const status = res.statusCode ?? 0;
        // The answer comes on the stream; the POST's own body says only "Accepted".
        if (status >= 200 && status < 300) return void res.resume();
        const error = postError(res, await readText(res), unfollowedRedirect(endpoint, res));
        if (status === 401) this.auth.failure = error;
        throw error;
      },
      (error) => {
        if (this.closed) return;
        if (id !== undefined) this.deliver(failureFrame(id, error));
        else this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      },
      (error) => error === this.auth.failure,
    );
  }

  async close(): Promise<void> {
    this.end();
  }

  private async read(res: IncomingMessage, resolve: () => void, reject: (error: Error) => void): Promise<void> {
    await readEventStream(
      res,
      {
        frame: (frame) => this.deliver(frame),
        other: (event) => {
          event.blobs.dispose();
          if (event.event !== 'endpoint') return;
          let endpoint: URL;
          try {
            endpoint = new URL(event.data, this.url);
            if (endpoint.origin !== this.url.origin) {
              throw new Error(`Endpoint origin does not match connection origin: ${endpoint.origin}`);
            }
          } catch (error) {
            reject(error as Error);
            this.onerror?.(error as Error);
            return this.end();
          }
          this.postTo = endpoint;
          resolve();
        },
        onerror: (error) => this.onerror?.(error),
      },
      this.maxBytes,
    );
    reject(new Error('SSE error: the stream ended before the server named its endpoint'));
    this.end();
  }

  private headers(token: string | undefined): Record<string, string> {
    const headers = { ...this.configured };
    if (token) headers.authorization = `Bearer ${token}`;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  private deliver(frame: Frame): void {
    if (this.closed) return frame.blobs.dispose();
    this.onframe?.(frame);
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.lifetime.abort(new Error('the connection is closed'));
    this.http.destroy();
    this.onclose?.();
  }
}
