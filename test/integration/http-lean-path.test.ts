// The HTTP forwarding path of a legacy session's plain tools/call (issue #13 item 5): the proxy's POST is served on
// Node's request and response past the SDK's Node adapter (http/lean-post.ts), and the call reaches a legacy
// Streamable HTTP upstream on Node's own HTTP client past the SDK's fetch transport (fast-path/http-post.ts). These
// tests drive dist/cli.js --http --url in front of the SDK v1 fixture over real sockets: what the client reads is
// checked on the wire (a JSON answer, SSE framing, event ids kept for a reconnect, the SDK's own refusals), and so is
// what the upstream saw (no fetch user-agent: the call did not go through the SDK's transport).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startCli, stopAllCli } from '../helpers/cli.js';
import { NODE, startListening } from '../helpers/fixtures.js';
import { textOf } from '../helpers/results.js';
import { handshake, LEGACY_PROTOCOL } from '../helpers/raw-session.js';
import { messageOf, SseReader } from '../helpers/sse-reader.js';

const SERVER = fileURLToPath(new URL('../fixtures/legacy-era-server.mjs', import.meta.url));
const ACCEPT = 'application/json, text/event-stream';
const children: ChildProcess[] = [];
const dirs: string[] = [];

/** The fixture over Streamable HTTP with `flags`; resolves with its URL. */
async function upstream(...flags: string[]): Promise<string> {
  const listening = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/;
  const { match, child } = await startListening(NODE, [SERVER, '--http', '0', ...flags], listening);
  children.push(child);
  return match[1]!;
}

/** dist/cli.js --http in front of `url` (named "legacy", with `keys` in its entry); resolves with its endpoint. */
async function proxy(url: string, keys = ''): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-http-lean-'));
  dirs.push(dir);
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `servers:\n  legacy:\n    url: ${url}\n${keys}`);
  const cli = startCli(['--http', '127.0.0.1:0', '--config', config, '--artifact-dir', join(dir, 'artifacts')]);
  const [, endpoint] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
  return endpoint!;
}

/** A legacy session opened by hand: its id, and a POST that returns the raw response. */
async function rawSession(endpoint: string) {
  const sessionHeaders = (sessionId?: string): Record<string, string> => ({
    'content-type': 'application/json',
    accept: ACCEPT,
    ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_PROTOCOL } : {}),
  });
  const { id: session } = await handshake(endpoint, sessionHeaders, 'raw');
  const post = (body: object, headers: Record<string, string> = {}) =>
    fetch(endpoint, {
      method: 'POST',
      headers: { ...sessionHeaders(session), ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
  return { session, post };
}

async function legacyClient(endpoint: string): Promise<{ client: Client; logs: string[] }> {
  const client = new Client({ name: 'lean-http-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const logs: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  return { client, logs };
}

afterAll(async () => {
  await stopAllCli();
  for (const child of children) child.kill('SIGTERM');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a legacy session in front of a legacy Streamable HTTP upstream that streams its answers', () => {
  let target: string;
  let endpoint: string;

  beforeAll(async () => {
    target = await upstream('--resumable');
    endpoint = await proxy(target);
  }, 30_000);

  test('a call answered at once comes back as one JSON body, byte for byte what the upstream answered', async () => {
    const { post, session } = await rawSession(endpoint);
    const direct = await rawSession(target);
    const call = { id: 'call-1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } };
    const upstreamEvents = new SseReader((await direct.post(call)).body!);
    let sent = await upstreamEvents.next();
    while (sent && !sent.data) sent = await upstreamEvents.next();
    // Answered within the proxy's first 50 ms: on a loaded machine one call of a few may not be.
    let res: Response | undefined;
    for (let attempt = 0; attempt < 5 && res?.headers.get('content-type') !== 'application/json'; attempt++) {
      if (res) await res.text();
      res = await post(call);
    }
    expect(res!.status).toBe(200);
    expect(res!.headers.get('content-type')).toBe('application/json');
    expect(res!.headers.get('mcp-session-id')).toBe(session);
    const text = await res!.text();
    expect(res!.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(text).toBe(sent!.data);
  });

  test('a call not answered within 50 ms is an SSE stream the SDK stores: a reconnect replays it', async () => {
    const { post, session } = await rawSession(endpoint);
    const res = await post({ id: 'call-2', method: 'tools/call', params: { name: 'slow', arguments: { ms: 400 } } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('mcp-session-id')).toBe(session);
    const reader = new SseReader(res.body!);
    const priming = await reader.next();
    expect(priming).toMatchObject({ data: '', id: expect.any(String), retry: expect.any(Number) });
    const answer = await reader.next();
    expect(JSON.parse(answer!.data)).toEqual({
      jsonrpc: '2.0',
      id: 'call-2',
      result: { content: [{ type: 'text', text: 'slept 400' }] },
    });
    expect(answer!.id).toEqual(expect.any(String));
    expect(await reader.next()).toBeUndefined();

    // The stream's events are in the event store, as the SDK's own streams' are: a client that lost the stream
    // after the priming event gets the answer again.
    const replay = await fetch(endpoint, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': priming!.id! },
    });
    expect(replay.status).toBe(200);
    const again = await new SseReader(replay.body!).message((m) => m.id === 'call-2');
    expect(again).toEqual(JSON.parse(answer!.data));
  });

  test('a call whose log messages come first is a stream: the messages in order, then the answer', async () => {
    const { post } = await rawSession(endpoint);
    await (await post({ id: 'level', method: 'logging/setLevel', params: { level: 'debug' } })).text();
    const res = await post({
      id: 'call-3',
      method: 'tools/call',
      params: { name: 'log_then', arguments: { text: 'x' } },
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = new SseReader(res.body!);
    const messages: unknown[] = [];
    for (let event = await reader.next(); event; event = await reader.next()) {
      if (event.data) messages.push(JSON.parse(event.data));
    }
    expect(messages).toEqual([
      expect.objectContaining({
        method: 'notifications/message',
        params: expect.objectContaining({ data: 'log 1 of x' }),
      }),
      expect.objectContaining({
        method: 'notifications/message',
        params: expect.objectContaining({ data: 'log 2 of x' }),
      }),
      { jsonrpc: '2.0', id: 'call-3', result: { content: [{ type: 'text', text: 'x' }] } },
    ]);
  });

  test("ids of every kind come back as sent; the upstream's refusal of bad arguments reaches the client as it was", async () => {
    const { post } = await rawSession(endpoint);
    for (const id of [0, 7, -3, 2 ** 40, '', 'x y', 'ü']) {
      const res = await post({ id, method: 'tools/call', params: { name: 'echo', arguments: { text: String(id) } } });
      const answer = await messageOf(res, (m) => 'result' in m || 'error' in m);
      expect(answer).toEqual({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(id) }] } });
    }
    const direct = await rawSession(target);
    // The upstream refuses arguments that do not fit the tool's schema.
    const call = { id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 5 } } };
    const expected = await new SseReader((await direct.post(call)).body!).message((m) => m.id === 9);
    const got = await messageOf(await post(call), (m) => m.id === 9);
    expect(got).toEqual(expected);
  });

  test('what the SDK refuses is still refused as the SDK does', async () => {
    const { post } = await rawSession(endpoint);
    const call = { id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } };
    const onlyJson = await post(call, { accept: 'application/json' });
    expect(onlyJson.status).toBe(406);
    const badVersion = await post(call, { 'mcp-protocol-version': '1999-01-01' });
    expect(badVersion.status).toBe(400);
    expect(await badVersion.text()).toContain('Unsupported protocol version');
    const notJson = await post(call, { 'content-type': 'text/plain' });
    expect(notJson.status).toBe(415);
  });

  test('log messages of the call reach the client before its result; the call did not take the SDK transport', async () => {
    const { client, logs } = await legacyClient(endpoint);
    await client.setLoggingLevel('debug');
    const result = await client.callTool({ name: 'log_then', arguments: { text: 'done', count: 3 } });
    expect(textOf(result)).toBe('done');
    expect(logs).toEqual(['log 1 of done', 'log 2 of done', 'log 3 of done']);
    const agents = JSON.parse(textOf(await client.callTool({ name: 'agents', arguments: {} }))) as unknown[];
    // The SDK's transport posts with fetch, which names itself "node"; Node's own client sends no user-agent.
    expect(agents.at(-1)).toBeNull();
    await client.close();
  });

  test("the upstream's question during a call reaches the client and its answer goes back", async () => {
    const { client } = await legacyClient(endpoint);
    const result = await client.callTool({ name: 'ask', arguments: { question: 'name?' } });
    expect(textOf(result)).toBe('answer: {"action":"accept","content":{"name":"Ada"}}');
    await client.close();
  });

  test('an upstream that closes the stream of a call (SSE polling) is resumed with Last-Event-ID', async () => {
    const { client } = await legacyClient(endpoint);
    const result = await client.callTool({ name: 'poll', arguments: { text: 'after the reconnect' } });
    expect(textOf(result)).toBe('after the reconnect');
    await client.close();
  });

  test('a cancelled call is cancelled upstream', async () => {
    const { client } = await legacyClient(endpoint);
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { ms: 30_000 } }, undefined, {
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    let cancelled: unknown[] = [];
    for (let i = 0; i < 50 && cancelled.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      cancelled = JSON.parse(textOf(await client.callTool({ name: 'cancelled', arguments: {} }))) as unknown[];
    }
    expect(cancelled.length).toBeGreaterThan(0);
    await client.close();
  });

  test('an image is stored and summarized on the way', async () => {
    const { client } = await legacyClient(endpoint);
    const result = await client.callTool({ name: 'image', arguments: {} });
    expect(JSON.stringify(result)).toMatch(/artifact:\/\/[^"]+/);
    expect(JSON.stringify(result).length).toBeLessThan(5000);
    await client.close();
  });
});

describe('a legacy Streamable HTTP upstream that answers with application/json', () => {
  test('calls are answered, and a call the upstream does not answer in time times out', async () => {
    const target = await upstream('--json');
    const endpoint = await proxy(target, '    timeoutMs: 1500\n');
    const { client } = await legacyClient(endpoint);
    for (let i = 0; i < 20; i++) {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: `n${i}` } }))).toBe(`n${i}`);
    }
    const agents = JSON.parse(textOf(await client.callTool({ name: 'agents', arguments: {} }))) as unknown[];
    expect(agents).toHaveLength(20);
    expect(agents.every((agent) => agent === null)).toBe(true);
    const slow = await client.callTool({ name: 'slow', arguments: { ms: 10_000 } }).then(
      (result) => JSON.stringify(result),
      (error: unknown) => String(error),
    );
    expect(slow).toMatch(/did not answer tools\/call within 1500 ms/);
    await client.close();
  }, 30_000);

  test('an HTTP error of the upstream reaches the client as the SDK reports it', async () => {
    const target = await upstream('--json');
    const endpoint = await proxy(target);
    const { client } = await legacyClient(endpoint);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'up' } }))).toBe('up');
    // The fixture forgets its sessions: the proxy's next POST gets 404 "Session not found".
    await client.callTool({ name: 'forget_sessions', arguments: {} });
    const failed = await client.callTool({ name: 'echo', arguments: { text: 'down' } }).then(
      (result) => textOf(result),
      (error: unknown) => String(error),
    );
    expect(failed).toContain('Error POSTing to endpoint');
    expect(failed).toContain('Session not found');
    await client.close();
  }, 30_000);
});

/**
 * An HTTP front of the fixture at `target`: `intercept` may answer a request itself (true); everything else is
 * relayed to the fixture, whatever its path. Resolves with the front's base URL and how to stop it.
 */
async function front(
  target: string,
  intercept: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<{ base: string; close(): void }> {
  const server = createServer((req, res) => {
    if (intercept(req, res)) return;
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
          headers[name] = value;
      const answer = await fetch(target, {
        method: req.method,
        headers,
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      });
      const out: Record<string, string> = {};
      for (const [name, value] of answer.headers) if (name !== 'content-length') out[name] = value;
      res.writeHead(answer.status, out);
      if (answer.body) for await (const chunk of answer.body) res.write(chunk);
      res.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('a legacy Streamable HTTP upstream behind a front', () => {
  test('a redirected call is sent again the way the SDK follows redirects, and answered', async () => {
    // /mcp answers 307 to /real, which relays to the fixture: the SDK's transport follows such a redirect itself.
    const redirecting = await front(await upstream(), (req, res) => {
      if (req.url !== '/mcp') return false;
      res.writeHead(307, { location: '/real' }).end();
      return true;
    });
    try {
      const { client } = await legacyClient(await proxy(`${redirecting.base}/mcp`));
      for (const text of ['one', 'two', 'three'])
        expect(textOf(await client.callTool({ name: 'echo', arguments: { text } }))).toBe(text);
      await client.close();
    } finally {
      redirecting.close();
    }
  }, 30_000);

  test('a server that starts asking for an OAuth login mid-session gets the login command, not an outage', async () => {
    let locked = false;
    const guarded = await front(await upstream(), (req, res) => {
      if (!locked || req.method !== 'POST') return false;
      const metadata = `http://${req.headers.host}/.well-known/oauth-protected-resource`;
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${metadata}"` }).end();
      return true;
    });
    try {
      const { client } = await legacyClient(await proxy(`${guarded.base}/mcp`));
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'open' } }))).toBe('open');
      locked = true;
      // The POST Node's client sent is handed to the SDK's transport, whose fetch sees the challenge.
      const refused = await client.callTool({ name: 'echo', arguments: { text: 'locked' } }).then(
        (result) => textOf(result),
        (error: unknown) => String(error),
      );
      expect(refused).toContain('needs a login');
      expect(refused).toContain('mcp-offload login legacy');
      await client.close();
    } finally {
      guarded.close();
    }
  }, 30_000);
});
