import http from 'node:http';
import https from 'node:https';
import {
  isJSONRPCErrorResponse,
  PROTOCOL_VERSION_META_KEY,
  SdkHttpError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/client';
import { createParser } from 'eventsource-parser';
import { essence } from '../artifacts/mime.js';
import { encodeParamValue } from '../protocol/param-header-codec.js';
import { isModernVersion } from '../protocol/versions.js';
import { parseExact, stringifyExact } from '../codec/exact-numbers.js';

/** What a POST needs of the connection as it is now. */
export interface PostSession {
  sessionId?: string;
  protocolVersion?: string;
}

/** How long to wait before resuming a stream the server closed, when it named no `retry` (the SDK's first delay). */
const DEFAULT_RETRY_MS = 1000;
/** Reconnects in a row that bring nothing new before the request is given up (the SDK's maxRetries). */
const MAX_RESUMES = 2;

/** Headers a request's own extra headers may not replace (the SDK transport's RESERVED_REQUEST_HEADER_NAMES). */
const RESERVED_HEADERS = new Set([
  'authorization',
  'dpop',
  'content-type',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
]);

/**
 * Sends a Streamable HTTP upstream the requests the proxy relays (direct-requests.ts) on Node's own HTTP client, and
 * hands every message of the answer, in order, to `deliver`: where the SDK's transport would hand it (so progress,
 * log messages and the server's questions go where they always went, and the answer to DirectRequests). The SDK's
 * transport does the same over fetch and web streams, which cost a relayed call more than the hop itself
 * (docs/performance.md, issue #13 item 5).
 *
 * As the SDK's transport does: the connection's headers, session id and protocol version go with each POST; a
 * 2026-07-28 request (its `_meta` names the version) also carries the headers derived from its body
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, Base64-wrapped as the SDK wraps it) and its own extra headers
 * (`Mcp-Param-*`), and a 400 answered to it with a JSON-RPC error for it is that request's answer; a JSON answer and
 * an SSE stream are both read; a stream the server closes after an event id is resumed with GET and Last-Event-ID;
 * an HTTP error rejects with the SDK's error and is reported to `onerror`. What it does not do, the SDK's transport
 * does: authorization (connections with an auth provider do not come here) and redirects. A POST answered with a
 * redirect, 401 or 403 was not served, so it is handed over (`handOver`) to be sent the SDK's way, whose fetch
 * follows the redirect or learns the server's OAuth challenge (upstreams/oauth/).
 *
 * The promise `post` returns settles when the answer has been delivered, or rejects when it cannot come.
 */
export class HttpPoster {
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  /** Where every request goes, as request options (turning the URL into them each time shows in profiles). */
  private readonly target: http.RequestOptions;
  /** The configured headers, lower-cased, and the Accept every POST sends. */
  private readonly fixed: Record<string, string> = {};
  private readonly accept: string;
  private readonly open = new Set<http.ClientRequest>();
  private closed = false;

  constructor(
    url: URL,
    headers: Record<string, string>,
    private readonly session: () => PostSession,
    private readonly deliver: (message: JSONRPCMessage) => void,
    private readonly onerror: (error: Error) => void,
    private readonly handOver: (message: JSONRPCRequest, headers?: Record<string, string>) => Promise<void>,
  ) {
    const secure = url.protocol === 'https:';
    this.agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    this.request = secure ? https.request : http.request;
    this.target = {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      ...(url.username || url.password
        ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
        : {}),
      agent: this.agent,
    };
    for (const [name, value] of Object.entries(headers)) this.fixed[name.toLowerCase()] = value;
    this.accept = acceptBoth(this.fixed.accept);
  }

  post(message: JSONRPCRequest, extra?: Record<string, string>): Promise<void> {
    const body = stringifyExact(message);
    const headers = this.baseHeaders();
    const claimed = claimedVersionOf(message);
    if (claimed !== undefined) {
      headers['mcp-protocol-version'] = claimed;
      headers['mcp-method'] = message.method;
      // The one method relayed this way in that era is tools/call, whose Mcp-Name is the tool's name.
      const name = (message.params as { name?: unknown }).name;
      if (typeof name === 'string') headers['mcp-name'] = encodeParamValue(name);
    }
    for (const [name, value] of Object.entries(extra ?? {})) {
      const key = name.toLowerCase();
      if (!RESERVED_HEADERS.has(key)) headers[key] = value;
    }
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
    headers.accept = this.accept;
    return new Promise<void>((resolve, reject) => {
      const answer = new Answer(message.id, this.deliver, this.onerror);
      this.send(
        'POST',
        headers,
        body,
        (res) => {
          const status = res.statusCode ?? 0;
          if ((status >= 300 && status < 400) || status === 401 || status === 403) {
            res.resume();
            return this.handOver(message, extra).then(resolve, reject);
          }
          if (status === 400 && claimed !== undefined && isModernVersion(claimed)) {
            return this.refused(res, answer, resolve, reject);
          }
          if (status < 200 || status >= 300) return this.failed(res, reject);
          const type = essence(res.headers['content-type']);
          if (type === 'application/json') return readJson(res, answer, resolve, reject, this.onerror);
          if (type === 'text/event-stream') return this.readStream(res, answer, resolve, reject, 0);
          res.resume();
          const error = new Error(`Unexpected content type: ${res.headers['content-type']}`);
          this.onerror(error);
          reject(error);
        },
        reject,
      );
    });
  }

  /** Everything pending fails; nothing more is sent. */
  close(): void {
    this.closed = true;
    for (const req of this.open) req.destroy(new Error('Connection closed'));
    this.open.clear();
    this.agent.destroy();
  }

  private baseHeaders(): Record<string, string> {
    const headers = { ...this.fixed };
    const { sessionId, protocolVersion } = this.session();
    if (sessionId) headers['mcp-session-id'] = sessionId;
    if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    return headers;
  }

  private send(
    method: 'POST' | 'GET',
    headers: Record<string, string>,
    body: string | undefined,
    onResponse: (res: http.IncomingMessage) => void,
    reject: (error: Error) => void,
  ): void {
    if (this.closed) return reject(new Error('Connection closed'));
    const req = this.request({ ...this.target, method, headers }, onResponse);
    this.open.add(req);
    req.once('close', () => this.open.delete(req));
    req.once('error', (error) => {
      // Closing the connection ends what is pending: DirectRequests tells each request so, once.
      if (!this.closed) this.onerror(error);
      reject(error);
    });
    req.end(body);
  }

  /**
   * A 400 answered to a 2026-07-28 request: a JSON-RPC error for that request is its answer (the server refused it,
   * say for a missing `Mcp-Param-*` header), as the SDK's transport takes it; anything else fails it as an HTTP error.
   */
  private refused(
    res: http.IncomingMessage,
    answer: Answer,
    resolve: () => void,
    reject: (error: Error) => void,
  ): void {
    readText(res, (text) => {
      let parsed: unknown;
      try {
        parsed = parseExact(text);
      } catch {
        parsed = undefined;
      }
      if (isJSONRPCErrorResponse(parsed) && parsed.id === answer.id) {
        answer.takeParsed(parsed);
        return resolve();
      }
      this.fail(res, text, reject);
    });
  }

  private failed(res: http.IncomingMessage, reject: (error: Error) => void): void {
    readText(res, (text) => this.fail(res, text, reject));
  }

  private fail(res: http.IncomingMessage, text: string, reject: (error: Error) => void): void {
    const error = new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
      status: res.statusCode ?? 0,
      statusText: res.statusMessage,
      text,
    });
    this.onerror(error);
    reject(error);
  }

  /** Reads an SSE answer; a stream that ends early after an event id is resumed, as the SDK's transport does. */
  private readStream(
    res: http.IncomingMessage,
    answer: Answer,
    resolve: () => void,
    reject: (error: Error) => void,
    resumes: number,
  ): void {
    let progressed = false;
    let lastEventId: string | undefined;
    let retryMs = DEFAULT_RETRY_MS;
    const parser = createParser({
      onEvent: (event) => {
        progressed = true;
        if (event.id !== undefined) lastEventId = event.id;
        if (event.data && (event.event === undefined || event.event === 'message')) answer.take(event.data);
      },
      onRetry: (ms) => (retryMs = ms),
    });
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => parser.feed(chunk));
    res.once('error', () => undefined);
    res.once('close', () => {
      if (answer.done) return resolve();
      const tries = progressed ? 0 : resumes + 1;
      if (this.closed || lastEventId === undefined || tries > MAX_RESUMES) {
        return reject(new Error('the upstream ended the stream of a request before answering it'));
      }
      const from = lastEventId;
      setTimeout(() => this.resume(from, answer, resolve, reject, tries), retryMs);
    });
  }

  private resume(
    lastEventId: string,
    answer: Answer,
    resolve: () => void,
    reject: (error: Error) => void,
    tries: number,
  ): void {
    const headers = this.baseHeaders();
    headers.accept = 'text/event-stream';
    headers['last-event-id'] = lastEventId;
    this.send(
      'GET',
      headers,
      undefined,
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300 || essence(res.headers['content-type']) !== 'text/event-stream') {
          res.resume();
          return reject(new Error(`resuming the stream of a request failed (HTTP ${status})`));
        }
        this.readStream(res, answer, resolve, reject, tries);
      },
      reject,
    );
  }
}

/** The messages of one request's answer, delivered as they come; `done` once the answer itself came. */
class Answer {
  done = false;

  constructor(
    readonly id: JSONRPCRequest['id'],
    private readonly deliver: (message: JSONRPCMessage) => void,
    private readonly onerror: (error: Error) => void,
  ) {}

  take(data: string): void {
    let message: unknown;
    try {
      message = parseExact(data);
    } catch (error) {
      this.onerror(error as SyntaxError);
      return;
    }
    this.takeParsed(message);
  }

  takeParsed(message: unknown): void {
    if (typeof message !== 'object' || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.onerror(new Error(`not a JSON-RPC message: ${JSON.stringify(message)?.slice(0, 200)}`));
      return;
    }
    const m = message as JSONRPCMessage;
    if ('id' in m && m.id === this.id && !('method' in m)) this.done = true;
    this.deliver(m);
  }
}

function readJson(
  res: http.IncomingMessage,
  answer: Answer,
  resolve: () => void,
  reject: (error: Error) => void,
  onerror: (error: Error) => void,
): void {
  readText(res, (text) => {
    let data: unknown;
    try {
      data = parseExact(text);
    } catch (error) {
      onerror(error as SyntaxError);
      return reject(error as SyntaxError);
    }
    for (const message of Array.isArray(data) ? data : [data]) answer.takeParsed(message);
    if (answer.done) resolve();
    else reject(new Error('the upstream answered a request with JSON that holds no answer to it'));
  });
}

function readText(res: http.IncomingMessage, done: (text: string) => void): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  res.once('end', () => done(text));
  res.once('error', () => done(text));
}

/** The configured Accept plus both types a Streamable HTTP client must accept, as the SDK's transport sends it. */
function acceptBoth(configured: string | undefined): string {
  const types = [
    ...(configured?.split(',').map((s) => s.trim().toLowerCase()) ?? []),
    'application/json',
    'text/event-stream',
  ];
  return [...new Set(types)].join(', ');
}

/** The version a request claims in its `_meta` envelope (2026-07-28 requests do), which its HTTP headers follow. */
function claimedVersionOf(message: JSONRPCRequest): string | undefined {
  const version = (message.params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}
