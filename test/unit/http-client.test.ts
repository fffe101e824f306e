// The HTTP wires (src/transports/http-client.ts, sse-client.ts) against real node:http servers on 127.0.0.1 that
// answer as each test scripts them: the headers a POST carries, JSON and SSE answers (cut into small pieces, several
// messages, huge literals), HTTP errors, sessions, resumption, OAuth against a small authorization server, the
// legacy SSE handshake, and a round trip with an SDK v2 server through a Peer.
// cspell:ignore ünïcødé
import { afterEach, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SdkHttpError,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Peer } from '../../src/rpc/peer.js';
import { JsonBodyReader } from '../../src/transports/json-body.js';
import { SseReader } from '../../src/transports/sse-reader.js';
import { StreamableHttpWire, type StreamableHttpOptions } from '../../src/transports/http-client.js';
import { SseWire } from '../../src/transports/sse-client.js';
import { Frame } from '../../src/wire/frame.js';
import type { Wire } from '../../src/wire/wire.js';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A server on 127.0.0.1 answering as `handler` says; `seen` is every request it got, body read. */
async function serve(handler: Handler): Promise<{ url: URL; base: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      void handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: new URL(`${base}/mcp`), base, seen, server };
}

/** A wire whose frames, errors and closes are recorded; `until` waits for a condition on them. */
function wired<W extends Wire>(wire: W) {
  const frames: Frame[] = [];
  const errors: Error[] = [];
  let closes = 0;
  wire.onframe = (frame) => frames.push(frame);
  wire.onerror = (error) => errors.push(error);
  wire.onclose = () => closes++;
  cleanup.push(() => wire.close());
  const until = async (condition: () => boolean, what = 'the condition', ms = 5000): Promise<void> => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return {
    wire,
    frames,
    errors,
    get closes() {
      return closes;
    },
    until,
  };
}

function streamable(url: URL, options: Partial<StreamableHttpOptions> = {}) {
  return wired(new StreamableHttpWire({ url, reconnection: { initialDelayMs: 10 }, ...options }));
}

/** Writes `text` in pieces of `size` bytes, one per tick (pieces that split characters and literals). */
async function writeInPieces(res: ServerResponse, text: string, size: number): Promise<void> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) {
    res.write(bytes.subarray(at, at + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const call = (id: number, name = 'echo') => Frame.request(id, 'tools/call', { name, arguments: { text: 'hi' } });
const answerText = (id: number, text = 'ünïcødé ✓') =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

// ---- The readers, on bytes cut at every possible place ----

test('JsonBodyReader: the messages of a body and their exact texts, however the bytes are cut', () => {
  const first = '{"a":"x\\"y\\\\","b":[1,{"c":"}]"}], "e": "é"}';
  const second = '{ "d" : "\\\\" }';
  const body = Buffer.from(`[${first} ,\n${second}]\n${second}`);
  for (let size = 1; size <= body.length; size++) {
    const values: string[] = [];
    const junk: string[] = [];
    const reader = new JsonBodyReader({ value: (text) => values.push(text), junk: (reason) => junk.push(reason) });
    for (let at = 0; at < body.length; at += size) reader.push(body.subarray(at, at + size));
    reader.end();
    expect({ size, values, junk }).toEqual({ size, values: [first, second, second], junk: [] });
  }
});

test('SseReader: the events eventsource-parser reads from the whole text, however the bytes are cut', () => {
  const text =
    '\ufeff: comment\r\nid: 1\r\nevent: message\r\ndata: {"a":"é"}\r\n\r\n' +
    'data:first\rdata: second\r\rretry: 250\ndata\ndata: x\n\nid: 7\n\nevent: endpoint\ndata: /post\n\ndata: cut';
  const expected: EventSourceMessage[] = [];
  const retries: number[] = [];
  const parser = createParser({ onEvent: (event) => expected.push(event), onRetry: (ms) => retries.push(ms) });
  parser.feed(text);
  expect(expected.map((event) => event.data)).toEqual(['{"a":"é"}', 'first\nsecond', '\nx', '/post']);
  const bytes = Buffer.from(text);
  for (let size = 1; size <= bytes.length; size++) {
    const events: EventSourceMessage[] = [];
    const seenRetries: number[] = [];
    const reader = new SseReader({
      event: ({ id, event, data }) => events.push({ id, event, data }),
      retry: (ms) => seenRetries.push(ms),
    });
    for (let at = 0; at < bytes.length; at += size) reader.push(bytes.subarray(at, at + size));
    reader.end();
    expect({ size, events, seenRetries }).toEqual({ size, events: expected, seenRetries: retries });
  }
});

test('a JSON answer: the POST carries the connection headers, the answer arrives as a frame', async () => {
  const { url, seen } = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(answerText(1));
  });
  const w = streamable(url, { headers: { 'X-Team': 'blue', Accept: 'application/x-ndjson' } });
  w.wire.protocolVersion = '2025-11-25';
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 1);
  expect(w.frames[0]!.encode()).toBe(answerText(1));
  expect(seen[0]!.method).toBe('POST');
  expect(seen[0]!.headers).toMatchObject({
    'content-type': 'application/json',
    accept: 'application/x-ndjson, application/json, text/event-stream',
    'x-team': 'blue',
    'mcp-protocol-version': '2025-11-25',
  });
  expect(JSON.parse(seen[0]!.body)).toEqual(call(1).message);
  expect(w.errors).toEqual([]);
});

test('an SSE answer: progress first, then the result, each a frame, whatever pieces the bytes came in', async () => {
  const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } };
  const { url } = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await writeInPieces(
      res,
      `: ping\n\nevent: message\ndata: ${JSON.stringify(progress)}\r\n\r\ndata: ${answerText(1)}\n\n`,
      7,
    );
    res.end();
  });
  const w = streamable(url);
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 2);
  expect(w.frames.map((f) => f.encode())).toEqual([JSON.stringify(progress), answerText(1)]);
});

test('several messages under application/json: an array, and values one after another, each kept as its bytes', async () => {
  const log = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a [b] {c}"}}';
  const answer = '{ "jsonrpc": "2.0", "id": 1, "result": {"n": 1.0} }';
  let body = `[${log} ,\n ${answer}]`;
  const { url } = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  const w = streamable(url);
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 2);
  expect(w.frames.map((f) => f.encode())).toEqual([log, answer]);
  body = `${log}\n${answer.replace('"id": 1', '"id": 2')}\n`;
  await w.wire.send(call(2));
  await w.until(() => w.frames.length === 4);
  expect(w.frames.slice(2).map((f) => f.encode())).toEqual([log, answer.replace('"id": 1', '"id": 2')]);
  expect(w.errors).toEqual([]);
});

test('bytes are kept both ways: 1.0, 9007199254740993 and odd spacing', async () => {
  const body = '{ "jsonrpc" : "2.0",\n  "id":1, "result": {"a": 1.0, "big": 9007199254740993 , "s":"\\u00e9"} }';
  const { url, seen } = await serve((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(body),
  );
  const w = streamable(url);
  const request =
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"n":1.0,"id":12345678901234567890}}}';
  await w.wire.send(Frame.read(request));
  await w.until(() => w.frames.length === 1);
  expect(seen[0]!.body).toBe(request);
  expect(w.frames[0]!.encode()).toBe(body);
});

test('a 1 MB literal is cut into a blob as it arrives, in JSON and in SSE, and encode() restores it', async () => {
  const huge = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"image","mimeType":"image/png","data":"${'QUJD'.repeat(256 * 1024)}"}]}}`;
  const { url } = await serve(async (_req, res, body) => {
    const id = (JSON.parse(body) as { id: number }).id;
    if (id === 1) {
      res.writeHead(200, { 'content-type': 'application/json' });
      await writeInPieces(res, huge(1), 64 * 1024);
    } else {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeInPieces(res, `id: 9\ndata: ${huge(2)}\n\n`, 50_000);
    }
    res.end();
  });
  const w = streamable(url);
  await w.wire.send(call(1));
  await w.wire.send(call(2));
  await w.until(() => w.frames.length === 2);
  for (const [i, frame] of w.frames.entries()) {
    expect(frame.blobs.size).toBe(1);
    const data = (frame.message.result as { content: Array<{ data: string }> }).content[0]!.data;
    expect(data.length).toBeLessThan(100);
    expect(frame.blobs.view(data)?.length).toBe(1024 * 1024);
    expect(frame.encode()).toBe(huge(frame.id as number));
    expect(frame.id).toBe(i + 1);
  }
});

test('a 400 carrying a JSON-RPC error for the request is its answer; a 500 fails it with the status and the body', async () => {
  const refusal = '{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}';
  const { url } = await serve((req, res, body) => {
    const id = (JSON.parse(body) as { id?: number }).id;
    if (id === 1) return void res.writeHead(400, { 'content-type': 'application/json' }).end(refusal);
    res.writeHead(500, { 'content-type': 'text/plain' }).end('the database is down');
  });
  const w = streamable(url);
  await w.wire.send(call(1));
  await w.wire.send(call(2));
  await w.wire.send(Frame.notification('notifications/initialized'));
  await w.until(() => w.frames.length === 2 && w.errors.length === 1);
  expect(w.frames[0]!.encode()).toBe(refusal);
  const failed = w.frames[1]!;
  expect(failed.id).toBe(2);
  expect(failed.message.error).toMatchObject({ code: -32000 });
  expect(failed.message.error!.message).toMatch(/HTTP 500.*the database is down/);
  expect(w.errors[0]).toBeInstanceOf(SdkHttpError);
  expect((w.errors[0] as SdkHttpError).status).toBe(500);
});

test('the session id of the initialize answer is sent from then on; close() DELETEs it, then onclose once', async () => {
  const { url, seen } = await serve((req, res, body) => {
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    const message = JSON.parse(body) as { id?: number; method: string };
    if (message.id === undefined) return void res.writeHead(202).end();
    res
      .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-7' })
      .end(answerText(message.id));
  });
  const w = streamable(url, { sessionId: 'stale' });
  await w.wire.send(Frame.request(1, 'initialize', { protocolVersion: '2025-11-25' }));
  await w.until(() => w.frames.length === 1);
  expect(w.wire.sessionId).toBe('session-7');
  await w.wire.send(Frame.notification('notifications/initialized'));
  await w.wire.send(call(2));
  await w.until(() => w.frames.length === 2);
  await w.wire.close();
  await w.wire.close();
  expect(seen.map((s) => [s.method, s.headers['mcp-session-id']])).toEqual([
    ['POST', undefined],
    ['POST', 'session-7'],
    ['POST', 'session-7'],
    ['DELETE', 'session-7'],
  ]);
  expect(w.closes).toBe(1);
  await expect(w.wire.send(call(3))).rejects.toThrow(/closed/);
});

test('a 404 to a request sent with the session id: the session is gone, the wire closes', async () => {
  const { url } = await serve((_req, res) => res.writeHead(404).end('Session not found'));
  const w = streamable(url, { sessionId: 'session-7' });
  await w.wire.send(call(1));
  await w.until(() => w.closes === 1);
  expect(w.frames).toEqual([]);
});

test('a request stream that ends before the answer, after an event id, is resumed with GET and Last-Event-ID', async () => {
  const progress = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}';
  const { url, seen } = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (req.method === 'POST') return void res.end(`id: e1\nretry: 20\ndata:\n\nid: e2\ndata: ${progress}\n\n`);
    res.end(`id: e3\ndata: ${answerText(1)}\n\n`);
  });
  const w = streamable(url, { sessionId: 's' });
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 2);
  expect(w.frames.map((f) => f.encode())).toEqual([progress, answerText(1)]);
  expect(seen.map((s) => [s.method, s.headers['last-event-id'], s.headers.accept])).toEqual([
    ['POST', undefined, 'application/json, text/event-stream'],
    ['GET', 'e2', 'text/event-stream'],
  ]);
  expect(seen[1]!.headers['mcp-session-id']).toBe('s');
});

test('resumption is bounded: a server that keeps ending the stream fails the request', async () => {
  const { url, seen } = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: e1\nretry: 5\ndata:\n\n');
  });
  const w = streamable(url);
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 1);
  expect(w.frames[0]!.message.error!.message).toMatch(/reconnection attempts/);
  expect(seen.filter((s) => s.method === 'GET')).toHaveLength(2);
});

test('the headers of a 2026-07-28 request: its own version, Mcp-Method, Mcp-Name, Mcp-Param-*, reserved ones kept', async () => {
  const { url, seen } = await serve((req, res, body) => {
    if (req.method === 'DELETE') return void res.writeHead(405).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(answerText((JSON.parse(body) as { id: number }).id));
  });
  const w = streamable(url, { sessionId: 'session-9' });
  w.wire.protocolVersion = '2025-11-25';
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  await w.wire.send(Frame.request(1, 'tools/call', { name: 'café ☕', arguments: { region: 'eu' }, _meta: meta }), {
    headers: {
      'Mcp-Param-Region': 'eu',
      'Mcp-Method': 'tools/list',
      Authorization: 'Bearer forged',
      'mcp-session-id': 'x',
    },
  });
  await w.wire.send(Frame.request(2, 'resources/read', { uri: 'file:///a.txt', _meta: meta }));
  await w.wire.send(Frame.request(3, 'tools/list', { _meta: meta }));
  await w.until(() => w.frames.length === 3);
  expect(seen[0]!.headers).toMatchObject({
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': `=?base64?${Buffer.from('café ☕').toString('base64')}?=`,
    'mcp-param-region': 'eu',
    'mcp-session-id': 'session-9',
  });
  expect(seen[0]!.headers.authorization).toBeUndefined();
  expect(seen[1]!.headers).toMatchObject({ 'mcp-method': 'resources/read', 'mcp-name': 'file:///a.txt' });
  expect(seen[2]!.headers['mcp-method']).toBe('tools/list');
  expect(seen[2]!.headers['mcp-name']).toBeUndefined();
});

test('a 2026-07-28 request is cancelled by closing its stream, not by POSTing notifications/cancelled', async () => {
  let streamClosed = false;
  const { url, seen } = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': working\n\n');
    res.once('close', () => (streamClosed = true));
  });
  const w = streamable(url);
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  await w.wire.send(Frame.request(1, 'tools/call', { name: 'slow', _meta: meta }));
  await w.until(() => seen.length === 1);
  await w.wire.send(Frame.notification('notifications/cancelled', { requestId: 1 }));
  await w.until(() => streamClosed, 'the stream to close');
  expect(seen).toHaveLength(1);
  expect(w.frames).toEqual([]);
});

test('307 and 308 are followed with method and body; a 302 to a POST is not', async () => {
  const { url, seen } = await serve((req, res, body) => {
    if (req.url === '/mcp') return void res.writeHead(307, { location: '/moved' }).end();
    if (req.url === '/moved') return void res.writeHead(308, { location: '/final' }).end();
    if (req.url === '/final') return void res.writeHead(200, { 'content-type': 'application/json' }).end(answerText(1));
    void body;
    res.writeHead(404).end();
  });
  const w = streamable(url);
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 1);
  expect(w.frames[0]!.encode()).toBe(answerText(1));
  expect(seen.map((s) => [s.method, s.url, s.body.length > 0])).toEqual([
    ['POST', '/mcp', true],
    ['POST', '/moved', true],
    ['POST', '/final', true],
  ]);
  const other = await serve((_req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
  const w2 = streamable(other.url);
  await w2.wire.send(call(2));
  await w2.until(() => w2.frames.length === 1);
  expect(w2.frames[0]!.message.error!.message).toMatch(/Redirect to .*\/elsewhere not followed/);
});

test('openStream: none on 405, an error on 500; otherwise its events are frames, and it is reopened', async () => {
  const none = await serve((_req, res) => res.writeHead(405).end());
  const w = streamable(none.url);
  await w.wire.openStream();
  expect(w.errors).toEqual([]);
  const failing = await serve((_req, res) => res.writeHead(500).end());
  const w1 = streamable(failing.url);
  await w1.wire.openStream();
  expect((w1.errors[0] as SdkHttpError).status).toBe(500);
  const notice = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';
  let gets = 0;
  const { url, seen } = await serve((_req, res) => {
    gets++;
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`id: n${gets}\nretry: 5\ndata: ${notice}\n\n`);
  });
  const w2 = streamable(url);
  await w2.wire.openStream();
  await w2.until(() => w2.frames.length >= 2);
  expect(w2.frames[0]!.encode()).toBe(notice);
  expect(seen[1]!.headers['last-event-id']).toBe('n1');
});

test('openStream waits until notifications/initialized is answered: the GET never reaches the server before it', async () => {
  // The server holds its 202 to the initialized POST for a while; a GET arriving meanwhile came too early.
  let initializedOpen = false;
  const early: string[] = [];
  const { url, seen } = await serve((req, res, body) => {
    if (req.method === 'GET') {
      if (initializedOpen) early.push('GET while the initialized POST was unanswered');
      return res.writeHead(405).end();
    }
    initializedOpen = true;
    setTimeout(() => {
      initializedOpen = false;
      res.writeHead(202).end();
    }, 150);
    return body;
  });
  const w = streamable(url);
  await w.wire.send(Frame.notification('notifications/initialized'));
  await w.wire.openStream();
  expect(seen.map((s) => s.method)).toEqual(['POST', 'GET']);
  expect(early).toEqual([]);
});

// ---- OAuth ----

/** An OAuthClientProvider holding its tokens in memory, as a test's stand-in for the proxy's token file. */
class MemoryProvider implements OAuthClientProvider {
  redirectedTo?: URL;
  private verifier = '';

  constructor(
    private readonly issuer: string,
    public current: StoredOAuthTokens | undefined,
    /** Without a browser: client credentials, as an m2m client gets its tokens. */
    private readonly interactive = true,
  ) {}

  get redirectUrl(): string | undefined {
    return this.interactive ? 'http://127.0.0.1:9/callback' : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'wire-test', redirect_uris: this.interactive ? ['http://127.0.0.1:9/callback'] : [] };
  }

  clientInformation() {
    return { client_id: 'wire-test', issuer: this.issuer };
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.current = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.redirectedTo = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.interactive) return undefined;
    return new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  }
}

/** An authorization server (RFC 8414 metadata and a token endpoint); `grants` are the token requests it got. */
async function authorizationServer(issue: (form: URLSearchParams) => Record<string, unknown>) {
  const grants: URLSearchParams[] = [];
  const as = await serve((req, res, body) => {
    const json = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.url === '/.well-known/oauth-authorization-server') {
      return json({
        issuer: as.base,
        authorization_endpoint: `${as.base}/authorize`,
        token_endpoint: `${as.base}/token`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      });
    }
    if (req.url === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(body);
      grants.push(form);
      return json(issue(form));
    }
    res.writeHead(404).end();
  });
  return { ...as, grants };
}

/**
 * An MCP server that wants Bearer tokens: `check` says, for a token and a request, 'ok' or the refusal (401, or 403
 * insufficient_scope naming a scope); its protected resource metadata points at `issuer`.
 */
async function protectedServer(
  issuer: () => string,
  check: (token: string | undefined, body: string) => 'ok' | 401 | string,
) {
  let metadataFetches = 0;
  const mcp = await serve((req, res, body) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      metadataFetches++;
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ resource: `${mcp.base}/mcp`, authorization_servers: [issuer()] }));
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const verdict = check(token, body);
    const metadata = `resource_metadata="${mcp.base}/.well-known/oauth-protected-resource/mcp"`;
    if (verdict === 401) return void res.writeHead(401, { 'www-authenticate': `Bearer ${metadata}` }).end();
    if (verdict !== 'ok') {
      const challenge = `Bearer error="insufficient_scope", scope="${verdict}", ${metadata}`;
      return void res.writeHead(403, { 'www-authenticate': challenge }).end();
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(answerText((JSON.parse(body) as { id: number }).id));
  });
  return { ...mcp, metadataFetches: () => metadataFetches };
}

test('401: auth() refreshes the token once for all the requests that met it, and each is retried with it', async () => {
  let valid = 'fresh-1';
  const as = await authorizationServer((form) => {
    expect(form.get('grant_type')).toBe('refresh_token');
    return { access_token: valid, token_type: 'Bearer', refresh_token: `r-${valid}` };
  });
  const mcp = await protectedServer(
    () => as.base,
    (token) => (token === valid ? 'ok' : 401),
  );
  const provider = new MemoryProvider(as.base, {
    access_token: 'stale',
    token_type: 'Bearer',
    refresh_token: 'r0',
    issuer: as.base,
  });
  const w = streamable(mcp.url, { auth: { provider } });
  await Promise.all([w.wire.send(call(1)), w.wire.send(call(2)), w.wire.send(call(3))]);
  await w.until(() => w.frames.length === 3);
  expect(w.frames.map((f) => f.isError)).toEqual([false, false, false]);
  expect(as.grants).toHaveLength(1);
  expect(mcp.metadataFetches()).toBe(1);
  const retried = mcp.seen.filter((s) => s.method === 'POST' && s.headers.authorization === 'Bearer fresh-1');
  expect(retried).toHaveLength(3);
  // The token is rejected again later: a new authorization, without discovering the resource's metadata again.
  valid = 'fresh-2';
  await w.wire.send(call(4));
  await w.until(() => w.frames.length === 4);
  expect(w.frames[3]!.isError).toBe(false);
  expect(as.grants).toHaveLength(2);
  expect(mcp.metadataFetches()).toBe(1);
  expect(w.wire.lastChallenge?.resourceMetadata).toBe(`${mcp.base}/.well-known/oauth-protected-resource/mcp`);
});

test('403 insufficient_scope: a step-up authorization for the union of the scopes, then the retry', async () => {
  const as = await authorizationServer((form) => {
    const scope = form.get('scope') ?? '';
    return { access_token: `token:${scope}`, token_type: 'Bearer', scope };
  });
  const mcp = await protectedServer(
    () => as.base,
    (token) => (token === undefined ? 401 : token.split(':')[1]?.split(' ').includes('write') ? 'ok' : 'write'),
  );
  const provider = new MemoryProvider(
    as.base,
    { access_token: 'token:read', token_type: 'Bearer', scope: 'read', issuer: as.base },
    false,
  );
  const w = streamable(mcp.url, { auth: { provider } });
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 1);
  expect(w.frames[0]!.encode()).toBe(answerText(1));
  expect(as.grants.map((g) => [g.get('grant_type'), g.get('scope')])).toEqual([['client_credentials', 'read write']]);
  expect(mcp.seen.at(-1)!.headers.authorization).toBe('Bearer token:read write');
});

test('an authorization that needs a browser fails the request, and authFailure says so (an UnauthorizedError)', async () => {
  const as = await authorizationServer(() => ({ access_token: 'never', token_type: 'Bearer' }));
  const mcp = await protectedServer(
    () => as.base,
    (token) => (token === 'token:read' ? 'write' : 401),
  );
  const provider = new MemoryProvider(as.base, {
    access_token: 'token:read',
    token_type: 'Bearer',
    scope: 'read',
    refresh_token: 'r',
    issuer: as.base,
  });
  const w = streamable(mcp.url, { auth: { provider } });
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 1);
  expect(w.frames[0]!.message.error).toMatchObject({ code: -32000 });
  expect(w.wire.authFailure).toBeInstanceOf(UnauthorizedError);
  // A step-up asks for a new authorization (a refresh cannot widen the grant), with both scopes.
  expect(provider.redirectedTo?.searchParams.get('scope')).toBe('read write');
  expect(as.grants).toEqual([]);
});

test('a provider that fails: the request fails with its error, kept as authFailure', async () => {
  const as = await authorizationServer(() => ({ access_token: 'never', token_type: 'Bearer' }));
  const mcp = await protectedServer(
    () => as.base,
    () => 401,
  );
  const provider = new MemoryProvider(as.base, undefined);
  const cause = new Error('no login has been stored yet');
  provider.clientInformation = () => {
    throw cause;
  };
  const w = streamable(mcp.url, { auth: { provider } });
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 1);
  expect(w.wire.authFailure).toBe(cause);
  expect(w.frames[0]!.message.error!.message).toMatch(/no login has been stored yet/);
  // Only the one POST: no retry without a new token.
  expect(mcp.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
});

test('a 401 to a wire without a provider fails the request and keeps the challenge', async () => {
  const mcp = await protectedServer(
    () => 'http://127.0.0.1:9',
    () => 401,
  );
  const w = streamable(mcp.url);
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 1);
  expect(w.frames[0]!.message.error!.message).toMatch(/HTTP 401/);
  expect(w.wire.lastChallenge).toEqual({ resourceMetadata: `${mcp.base}/.well-known/oauth-protected-resource/mcp` });
  expect((w.wire.authFailure as SdkHttpError).status).toBe(401);
});

// ---- The legacy HTTP+SSE transport ----

test('SSE transport: start() waits for the endpoint, POSTs go there, message events are frames', async () => {
  let stream: ServerResponse | undefined;
  const { url, seen } = await serve((req, res, body) => {
    if (req.method === 'GET') {
      stream = res;
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .write('event: endpoint\ndata: /messages?session=abc\n\n');
      return;
    }
    res.writeHead(202).end('Accepted');
    stream!.write(`event: message\ndata: ${answerText((JSON.parse(body) as { id: number }).id)}\n\n`);
  });
  const w = wired(new SseWire({ url: new URL(`${url.origin}/sse`), headers: { 'X-Team': 'blue' } }));
  await w.wire.start();
  expect(w.wire.endpoint?.href).toBe(`${url.origin}/messages?session=abc`);
  await w.wire.send(call(1));
  await w.until(() => w.frames.length === 1);
  expect(w.frames[0]!.encode()).toBe(answerText(1));
  expect(seen.map((s) => [s.method, s.url, s.headers['x-team']])).toEqual([
    ['GET', '/sse', 'blue'],
    ['POST', '/messages?session=abc', 'blue'],
  ]);
  expect(seen[0]!.headers.accept).toBe('text/event-stream');
  stream!.end();
  await w.until(() => w.closes === 1, 'the close');
});

test('SSE transport: an endpoint of another origin is refused; an HTTP error rejects start() with its status', async () => {
  const { url } = await serve((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/event-stream' })
      .write('event: endpoint\ndata: http://example.com/steal\n\n');
  });
  const w = wired(new SseWire({ url }));
  await expect(w.wire.start()).rejects.toThrow(/origin does not match/);
  expect(w.closes).toBe(1);
  const refusing = await serve((_req, res) => res.writeHead(503).end('busy'));
  const w2 = wired(new SseWire({ url: refusing.url }));
  const error = await w2.wire.start().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SdkHttpError);
  expect((error as SdkHttpError).status).toBe(503);
});

// ---- A real SDK v2 server ----

test('an SDK v2 server (McpServer on NodeStreamableHTTPServerTransport): initialize, tools/list, tools/call via a Peer', async () => {
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();
  const server = createServer((req, res) => {
    void (async () => {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!transport) {
        if (sid) return void res.writeHead(404).end('Session not found');
        const mcp = new McpServer({ name: 'sdk-server', version: '1.0.0' });
        mcp.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
          content: [{ type: 'text' as const, text: `echo: ${text}` }],
        }));
        const created: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        await mcp.connect(created);
        cleanup.push(() => mcp.close());
        transport = created;
      }
      await transport.handleRequest(req, res);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const wire = new StreamableHttpWire({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` });
  const peer = new Peer(
    wire,
    { request: () => undefined, notification: () => undefined, closed: () => undefined },
    'test',
  );
  cleanup.push(() => peer.close());
  const init = await peer.request(
    Frame.request(0, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'wire-test', version: '1.0.0' },
    }),
  );
  const result = init.message.result as { protocolVersion: string; serverInfo: { name: string } };
  expect(result.serverInfo.name).toBe('sdk-server');
  expect(wire.sessionId).toEqual(expect.any(String));
  wire.protocolVersion = result.protocolVersion;
  await peer.notify(Frame.notification('notifications/initialized'));
  const list = await peer.request(Frame.request(0, 'tools/list', {}));
  expect((list.message.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['echo']);
  const echoed = await peer.request(Frame.request(0, 'tools/call', { name: 'echo', arguments: { text: 'ünïcødé' } }));
  expect(echoed.message.result).toMatchObject({ content: [{ type: 'text', text: 'echo: ünïcødé' }] });
  await peer.close();
  expect(transports.size).toBe(1);
});
