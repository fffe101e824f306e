// Clients of a proxy run with --http: a 2025-11-25 Streamable HTTP session (initialize, mcp-session-id, DELETE at the
// end) or a 2026-07-28 client (every POST stands alone, its envelope in _meta). Raw fetch, so a probe sees exactly
// what the proxy answered; every request is aborted once it is past the bound.
import { SseReader } from '../../helpers/sse-reader.js';
import type { Message } from './scripted-upstream.js';
import {
  ANSWER_BOUND_MS,
  LEGACY_VERSION,
  MODERN_VERSION,
  parsed,
  requestText,
  withEnvelope,
  within,
  type AskOptions,
  type Era,
  type ProbeClient,
} from './client.js';

export class HttpClient implements ProbeClient {
  readonly transport = 'http';
  private nextId = 0;

  private constructor(
    readonly era: Era,
    readonly endpoint: string,
    /** The legacy session's mcp-session-id. */
    readonly sessionId?: string,
  ) {}

  /** A 2025-11-25 session, its handshake done; or a 2026-07-28 client, which has none. */
  static async open(era: Era, endpoint: string): Promise<HttpClient> {
    if (era === 'modern') return new HttpClient(era, endpoint);
    const opening = new HttpClient(era, endpoint);
    const { response, answer } = await opening.post(
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: {},
          clientInfo: { name: 'hostile-probe', version: '1.0.0' },
        },
      },
      30_000,
    );
    const sessionId = response.headers.get('mcp-session-id');
    if (!answer.result || !sessionId) throw new Error(`initialize failed: ${JSON.stringify(answer).slice(0, 500)}`);
    const client = new HttpClient(era, endpoint, sessionId);
    const initialized = await fetch(endpoint, {
      method: 'POST',
      headers: client.headers('notifications/initialized'),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    if (initialized.status !== 202) throw new Error(`notifications/initialized got HTTP ${initialized.status}`);
    return client;
  }

  async ask(method: string, params: Record<string, unknown> = {}, options: AskOptions = {}): Promise<Message> {
    const id = options.id ?? ++this.nextId;
    const message = { jsonrpc: '2.0', id, method, params: withEnvelope(this.era, params) };
    return (await this.post(message, options.timeoutMs)).answer;
  }

  async askRaw(method: string, members: string, options: AskOptions = {}): Promise<Message> {
    const id = options.id ?? ++this.nextId;
    const text = requestText(this.era, id, method, members);
    // The params as JSON.parse reads them, for the headers a 2026-07-28 request repeats its name in.
    const params = (JSON.parse(text) as Message).params;
    return (await this.post({ jsonrpc: '2.0', id, method, params }, options.timeoutMs, text)).answer;
  }

  /**
   * POSTs one message as the client's era sends it (or `text`, the message as the probe wrote it); the answer to its
   * id, from a JSON body or an SSE stream.
   */
  async post(
    message: Message,
    timeoutMs = ANSWER_BOUND_MS,
    text = JSON.stringify(message),
  ): Promise<{ response: Response; answer: Message; status: number }> {
    const abort = new AbortController();
    const work = (async () => {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: this.headers(String(message.method), message.params),
        body: text,
        signal: abort.signal,
      });
      return { response, answer: await this.answerIn(response, message.id), status: response.status };
    })();
    try {
      return await within(work, timeoutMs, `${String(message.method)} over http (${this.era})`);
    } finally {
      abort.abort();
    }
  }

  /** Ends a legacy session (DELETE); a modern client has nothing to end. */
  async close(): Promise<void> {
    if (!this.sessionId) return;
    await fetch(this.endpoint, { method: 'DELETE', headers: { 'mcp-session-id': this.sessionId } }).catch(
      () => undefined,
    );
  }

  private headers(method: string, params?: Record<string, unknown>): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) {
      headers['mcp-session-id'] = this.sessionId;
      headers['mcp-protocol-version'] = LEGACY_VERSION;
    }
    if (this.era === 'modern') {
      headers['mcp-protocol-version'] = MODERN_VERSION;
      headers['mcp-method'] = method;
      const name = params?.name ?? params?.uri;
      if (typeof name === 'string' && /^[\x20-\x7e]*$/.test(name)) headers['mcp-name'] = name;
    }
    return headers;
  }

  /**
   * The answer to request `id` in a POST's response: the JSON-RPC message of a JSON body (an error the transport gave
   * instead, a 4xx with an `id: null` error, counts: it is an answer), or the one on the SSE stream. A question the
   * proxy asks on the stream (roots, sampling) is answered as a plain client does: no roots, nothing else.
   */
  private async answerIn(response: Response, id: unknown): Promise<Message> {
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream')) {
      const text = await response.text();
      if (text.trim() === '') return { jsonrpc: '2.0', id, error: { code: 0, message: `HTTP ${response.status}` } };
      return parsed(text);
    }
    const reader = new SseReader(response.body!);
    for (let event = await reader.next(); event; event = await reader.next()) {
      if (!event.data) continue;
      const message = parsed(event.data);
      if (message.method !== undefined && message.id !== undefined) void this.answerProxy(message);
      if (message.method === undefined && JSON.stringify(message.id) === JSON.stringify(id)) {
        void reader.cancel().catch(() => undefined);
        return message;
      }
    }
    throw new Error(`the stream of request ${JSON.stringify(id)} ended without its answer`);
  }

  private async answerProxy(request: Message): Promise<void> {
    const answer =
      request.method === 'roots/list'
        ? { jsonrpc: '2.0', id: request.id, result: { roots: [] } }
        : { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } };
    await fetch(this.endpoint, {
      method: 'POST',
      headers: this.headers('response'),
      body: JSON.stringify(answer),
    }).catch(() => undefined);
  }
}
