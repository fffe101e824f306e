// MCP 2026-07-28 clients in front of the proxy: server/discover, per-request envelopes, stateless Streamable HTTP,
// subscriptions/listen, and the bridge that carries a legacy (v1) server's questions to them as input_required
// results. Legacy clients keep working next to them.
import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Config } from '../../src/config/types.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpHandle } from '../../src/http/server.js';
import { silentLogger } from '../../src/logger.js';
import { CLI, cliEnv, REPO_ROOT, stopAllCli } from '../helpers/cli.js';
import { EVERYTHING_ENTRY, FIXTURES, NODE, startListening, waitFor } from '../helpers/fixtures.js';
import { testConfig, type ServerInput, type TestOptions } from '../helpers/proxy.js';
import { bearer, connectHttp, TOKENS, SIGNING_KEY } from '../helpers/sidecar.js';

const MODERN = '2026-07-28';
const [ALICE, BOB] = TOKENS;

type Mode = 'auto' | { pin: string };
type Block = { type: string; text?: string; uri?: string };

/** A v2 client that speaks 2026-07-28 (pinned, or negotiated with `auto`) and answers elicitation with `answer`. */
function modernClient(capabilities: ClientCapabilities = { elicitation: { form: {} } }, mode: Mode = { pin: MODERN }) {
  const client = new Client({ name: 'modern-test', version: '1.0.0' }, { capabilities, versionNegotiation: { mode } });
  const asked: unknown[] = [];
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { answer: 'forty-two' } };
    });
  }
  return { client, asked };
}

const texts = (result: { content?: unknown }): string[] =>
  ((result.content ?? []) as Block[]).filter((b) => b.type === 'text').map((b) => b.text ?? '');

interface HttpGateway {
  gateway: Gateway;
  http: HttpHandle;
  base: string;
  close(): Promise<void>;
}

/** An in-process HTTP gateway over the artifact, basic and dynamic-tools fixtures and `more`, with the test tokens. */
async function startGateway(options: TestOptions = {}, more: ServerInput[] = []): Promise<HttpGateway> {
  const config: Config = testConfig(
    [
      { name: 'art', command: NODE, args: [FIXTURES.artifact] },
      { name: 'basic', command: NODE, args: [FIXTURES.basic] },
      { name: 'dyn', command: NODE, args: [FIXTURES.dynamic] },
      ...more,
    ],
    options,
  );
  config.auth.tokens = TOKENS.map((t) => ({ ...t }));
  config.artifacts.links.signingKey = SIGNING_KEY;
  const gateway = new Gateway(config, silentLogger);
  await gateway.start();
  const http = await serveHttp(gateway, { host: '127.0.0.1', port: 0 }, silentLogger);
  return {
    gateway,
    http,
    base: `http://127.0.0.1:${http.port}`,
    close: async () => {
      await http.close();
      await gateway.stop();
      if (config.artifacts.dir) await rm(config.artifacts.dir, { recursive: true, force: true });
    },
  };
}

const httpTransport = (base: string, token: string) =>
  new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(token) } });

/** One 2026-07-28 request on the wire, as a client without the SDK would send it: the HTTP response. */
function postModern(
  base: string,
  token: string,
  id: number,
  method: string,
  params: Record<string, unknown>,
  capabilities: ClientCapabilities = { elicitation: { form: {} } },
): Promise<Response> {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      ...bearer(token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
        },
      },
    }),
  });
}

/** postModern's JSON-RPC response (the one for `id`, when it came as a stream). */
async function rawModern(
  ...request: Parameters<typeof postModern>
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }> {
  const id = request[2];
  const response = await postModern(...request);
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const messages = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { id?: unknown });
    return messages.find((m) => m.id === id) as never;
  }
  return JSON.parse(text) as never;
}

describe('2026-07-28 clients over Streamable HTTP', () => {
  let gw: HttpGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });

  afterAll(async () => {
    await gw.close();
  });

  test('a pinned client discovers the gateway without initialize', async () => {
    const { client } = modernClient();
    await client.connect(httpTransport(gw.base, ALICE.token));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const discovered = client.getDiscoverResult()!;
      expect(discovered.supportedVersions).toContain(MODERN);
      expect(discovered.capabilities).toMatchObject({ tools: { listChanged: true }, prompts: { listChanged: true } });
      expect(discovered._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcp-offload' });
    } finally {
      await client.close();
    }
  });

  test('tools come in config order, then each server’s own order, with ttlMs and cacheScope', async () => {
    const { client } = modernClient();
    await client.connect(httpTransport(gw.base, ALICE.token));
    const legacy = await connectHttp(gw.base, ALICE.token);
    try {
      const listed = await client.listTools();
      const names = listed.tools.map((t) => t.name);
      expect(listed.ttlMs).toBe(0);
      expect(listed.cacheScope).toBe('private');
      const servers = names.filter((n) => n.includes('__')).map((n) => n.split('__')[0]);
      expect(servers).toEqual(
        [...servers].sort((a, b) => ['art', 'basic', 'dyn'].indexOf(a) - ['art', 'basic', 'dyn'].indexOf(b)),
      );
      expect(names.slice(0, 2)).toEqual(['artifact_list', 'artifact_read']);
      // The same order as a legacy client sees, and the same on every request.
      expect((await legacy.client.listTools()).tools.map((t) => t.name)).toEqual(names);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(names);
    } finally {
      await client.close();
      await legacy.close();
    }
  });

  test('an auto client negotiates 2026-07-28 while a legacy client keeps its session on the same endpoint', async () => {
    const { client } = modernClient({}, 'auto');
    await client.connect(httpTransport(gw.base, ALICE.token));
    const legacy = await connectHttp(gw.base, BOB.token);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(legacy.sessionId).toBeTruthy();
      const [modernEcho, legacyEcho] = await Promise.all([
        client.callTool({ name: 'basic__echo', arguments: { message: 'modern' } }),
        legacy.client.callTool({ name: 'basic__echo', arguments: { message: 'legacy' } }),
      ]);
      expect(texts(modernEcho)).toEqual(['modern']);
      expect(texts(legacyEcho as { content?: unknown })).toEqual(['legacy']);
    } finally {
      await client.close();
      await legacy.close();
    }
  });

  test('an offloaded image is read back on a later request, over MCP and by its link; another token cannot', async () => {
    const first = modernClient().client;
    await first.connect(httpTransport(gw.base, ALICE.token));
    const result = await first.callTool({ name: 'art__image', arguments: { tag: 'modern-http' } });
    await first.close();
    const link = (result.content as Block[]).find((b) => b.type === 'resource_link');
    expect(link?.uri).toMatch(/^artifact:\/\//);
    const url = /https?:\/\/\S+\/artifacts\/\S+/.exec(texts(result).join('\n'))?.[0];
    expect(url).toBeDefined();

    const later = modernClient().client;
    await later.connect(httpTransport(gw.base, ALICE.token));
    const other = modernClient().client;
    await other.connect(httpTransport(gw.base, BOB.token));
    try {
      const read = await later.readResource({ uri: link!.uri! });
      const blob = (read.contents[0] as { blob?: string }).blob!;
      expect(Buffer.from(blob, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
      const listed = await later.listResources();
      expect(listed.resources.map((r) => r.uri)).toContain(link!.uri);
      const download = await fetch(url!);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(blob, 'base64'))).toBe(true);
      await expect(other.readResource({ uri: link!.uri! })).rejects.toThrow(/not found/i);
    } finally {
      await later.close();
      await other.close();
    }
  });

  test('a listen stream hears that the tools changed', async () => {
    const sessionsBefore = gw.gateway.sessionCount;
    const { client } = modernClient();
    await client.connect(httpTransport(gw.base, ALICE.token));
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    const subscription = await client.listen({ toolsListChanged: true });
    try {
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
      await client.callTool({ name: 'dyn__add-tool', arguments: { name: 'heard-over-http' } });
      await waitFor(() => changed > 0, 10_000, 20, 'tools/list_changed on the listen stream');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('dyn__heard-over-http');
    } finally {
      await subscription.close();
      await client.close();
    }
    // Every request had a session of its own, the listen stream's included, and none is left.
    await waitFor(() => gw.gateway.sessionCount === sessionsBefore, 10_000, 20, 'the per-request sessions to end');
  });

  test('a listen stream hears of updates to the resources it names, subscribed upstream while it is open', async () => {
    const { client } = modernClient();
    await client.connect(httpTransport(gw.base, ALICE.token));
    const uri = 'fixture://basic/hello';
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
    });
    const subscribed = async () =>
      JSON.parse(texts(await client.callTool({ name: 'basic__subscriptions', arguments: {} }))[0]!) as string[];
    const subscription = await client.listen({ resourceSubscriptions: [uri] });
    try {
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [uri] });
      await waitFor(() => updated.length > 0, 10_000, 20, 'resources/updated on the listen stream');
      expect(new Set(updated)).toEqual(new Set([uri]));
      expect(await subscribed()).toEqual([uri]);
    } finally {
      await subscription.close();
    }
    try {
      await waitFor(async () => (await subscribed()).length === 0, 10_000, 50, 'the upstream subscription to end');
    } finally {
      await client.close();
    }
  });

  test('log messages reach a call’s own stream only at the level the call asked for', async () => {
    const { client } = modernClient();
    await client.connect(httpTransport(gw.base, ALICE.token));
    const heard: unknown[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      heard.push(notification.params.data);
    });
    const log = (message: string, level: string, threshold?: string) =>
      client.callTool({
        name: 'basic__log',
        arguments: { message, level },
        ...(threshold ? { _meta: { 'io.modelcontextprotocol/logLevel': threshold } } : {}),
      });
    try {
      await log('asked for', 'warning', 'info');
      // A message the call did not ask for would have come on its stream before its result.
      await log('below the level', 'debug', 'info');
      await log('no level asked', 'error');
      expect(heard).toEqual(['asked for']);
    } finally {
      await client.close();
    }
  });

  test('a legacy server’s elicitation is answered by the modern client’s handler', async () => {
    const { client, asked } = modernClient();
    await client.connect(httpTransport(gw.base, ALICE.token));
    try {
      const result = await client.callTool({ name: 'basic__elicit', arguments: { message: 'What is the answer?' } });
      expect(JSON.parse(texts(result)[0]!)).toEqual({ action: 'accept', content: { answer: 'forty-two' } });
      expect(asked).toEqual([expect.objectContaining({ message: 'What is the answer?' })]);
    } finally {
      await client.close();
    }
  });

  test('a client that declared no elicitation is refused as a legacy client would be', async () => {
    const { client } = modernClient({});
    await client.connect(httpTransport(gw.base, ALICE.token));
    const legacy = await connectHttp(gw.base, ALICE.token);
    const outcome = (call: Promise<unknown>) =>
      call.then(
        (result) => ({ result }),
        // A v1 client prefixes the wire message with "MCP error <code>: " once more than a v2 client does.
        (error: { code?: number; message?: string }) => ({
          error: { code: error.code, message: error.message?.replace(/^(MCP error -?\d+: )+/, '') },
        }),
      );
    try {
      const ask = { name: 'basic__elicit', arguments: { message: 'anyone?' } };
      const [modern, old] = [await outcome(client.callTool(ask)), await outcome(legacy.client.callTool(ask))];
      expect(JSON.stringify(modern)).toMatch(/the MCP client connected to mcp-offload does not support elicitation/);
      expect(modern).toEqual(old);
    } finally {
      await client.close();
      await legacy.close();
    }
  });

  test('a method nobody here answers is HTTP 404, as the 2026 wire wants', async () => {
    const response = await postModern(gw.base, ALICE.token, 7, 'no/such-method', {}, {});
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: 'Method not found' },
    });
  });

  test('the requestState is the proxy’s seal: tampered or another token’s is refused, the real one resumes', async () => {
    const asked = await rawModern(gw.base, ALICE.token, 1, 'tools/call', {
      name: 'basic__elicit',
      arguments: { message: 'raw' },
    });
    expect(asked.result).toMatchObject({ resultType: 'input_required' });
    const { inputRequests, requestState } = asked.result as {
      inputRequests: Record<string, { method: string; params: { message: string } }>;
      requestState: string;
    };
    const [key, embedded] = Object.entries(inputRequests)[0]!;
    expect(embedded).toMatchObject({ method: 'elicitation/create', params: { message: 'raw' } });
    const answers = { [key]: { action: 'accept', content: { answer: 'sealed' } } };
    const retry = (token: string, id: number, state: string) =>
      rawModern(gw.base, token, id, 'tools/call', {
        name: 'basic__elicit',
        arguments: { message: 'raw' },
        inputResponses: answers,
        requestState: state,
      });

    const tampered = requestState.slice(0, -2) + (requestState.endsWith('AA') ? 'BB' : 'AA');
    expect((await retry(ALICE.token, 2, tampered)).error).toMatchObject({
      code: -32602,
      message: 'Invalid or expired requestState',
    });
    expect((await retry(BOB.token, 3, requestState)).error).toMatchObject({ code: -32602 });
    const done = await retry(ALICE.token, 4, requestState);
    expect(done.result).toMatchObject({ resultType: 'complete' });
    expect(JSON.parse(texts(done.result as { content?: unknown })[0]!)).toEqual({
      action: 'accept',
      content: { answer: 'sealed' },
    });
    // The call is over: its state resumes nothing any more.
    expect((await retry(ALICE.token, 5, requestState)).error).toMatchObject({ code: -32602 });
  });
});

describe('a held call that its client never comes back to', () => {
  let gw: HttpGateway;

  beforeAll(async () => {
    gw = await startGateway({ gateway: { inputHoldMs: 200 } });
  });

  afterAll(async () => {
    await gw.close();
  });

  test('ends after gateway.inputHoldMs, and its requestState is refused', async () => {
    const asked = await rawModern(gw.base, ALICE.token, 1, 'tools/call', {
      name: 'basic__elicit',
      arguments: { message: 'late' },
    });
    const { requestState } = asked.result as { requestState: string };
    expect(gw.gateway.bridge.callsOn(gw.gateway.upstreams[1]!)).toHaveLength(1);
    await waitFor(
      () => gw.gateway.bridge.callsOn(gw.gateway.upstreams[1]!).length === 0,
      10_000,
      20,
      'the hold to end',
    );
    const late = await rawModern(gw.base, ALICE.token, 2, 'tools/call', {
      name: 'basic__elicit',
      arguments: { message: 'late' },
      inputResponses: {},
      requestState,
    });
    expect(late.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
  });
});

describe('2026-07-28 clients over stdio (dist/cli.js)', () => {
  /** The 2026-07-28 fixture over Streamable HTTP, for the tests that wrap it with --url. */
  let modernHttp: string | undefined;
  let modernHttpProcess: ChildProcess | undefined;

  beforeAll(async () => {
    const { match, child } = await startListening(NODE, [FIXTURES.modern, '--http', '0'], /listening (\d+)/);
    modernHttpProcess = child;
    modernHttp = `http://127.0.0.1:${match[1]}/mcp`;
  });

  afterAll(() => {
    modernHttpProcess?.kill();
  });

  afterEach(async () => {
    await stopAllCli();
  });

  const stdio = (...args: string[]) =>
    new StdioClientTransport({ command: NODE, args: [CLI, ...args], env: cliEnv(), cwd: REPO_ROOT, stderr: 'ignore' });

  test.each<[string, Mode]>([
    ['a pinned', { pin: MODERN }],
    ['an auto', 'auto'],
  ])('%s client discovers the wrapped server, calls it, and answers its elicitation', async (_name, mode) => {
    const { client, asked } = modernClient({ elicitation: { form: {} } }, mode);
    await client.connect(stdio('--', NODE, FIXTURES.basic));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      // One server: the proxy mirrors it.
      expect(client.getDiscoverResult()?._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({
        name: 'basic',
      });
      const listed = await client.listTools();
      expect(listed).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
      expect(texts(await client.callTool({ name: 'echo', arguments: { message: 'over stdio' } }))).toEqual([
        'over stdio',
      ]);
      const answered = await client.callTool({ name: 'elicit', arguments: { message: 'stdio?' } });
      expect(JSON.parse(texts(answered)[0]!)).toMatchObject({ action: 'accept' });
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  test('server-everything’s progress reaches a call that asked for it; a call that did not ask ends all the same', async () => {
    const { client } = modernClient();
    await client.connect(stdio('--', NODE, EVERYTHING_ENTRY, 'stdio'));
    try {
      const call = { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } };
      const progress: Array<{ progress: number; total?: number }> = [];
      const watched = await client.callTool(call, { onprogress: (p) => progress.push(p) });
      expect(texts(watched).join()).toContain('completed');
      // The last one may be dropped by the SDK v2 client itself: it runs notification handlers a microtask later
      // and forgets a call's progress handler as its answer is read, so progress that comes in the same read as the
      // answer finds none (seen once in CI: 1 and 2 of 3).
      expect(progress.map((p) => [p.progress, p.total])).toEqual(
        [
          [1, 3],
          [2, 3],
          [3, 3],
        ].slice(0, Math.max(2, progress.length)),
      );
      // Unwatched, the call goes without a token (eras.ts; era-matrix.test.ts checks the bytes) and still ends.
      expect(texts(await client.callTool(call)).join()).toContain('completed');
    } finally {
      await client.close();
    }
  });

  test('a question a legacy server asks outside any call is refused once the client is there', async () => {
    const { client } = modernClient({ roots: {} });
    await client.connect(stdio('--', NODE, FIXTURES.basic, '--roots-on-init'));
    try {
      const initial = JSON.parse(texts(await client.callTool({ name: 'initial-roots', arguments: {} }))[0]!) as {
        error?: string;
      };
      expect(initial.error).toMatch(/cannot pass roots\/list .* no call of that client is in flight/);
    } finally {
      await client.close();
    }
  });

  test('a listen stream hears that the tools changed', async () => {
    const { client } = modernClient();
    await client.connect(stdio('--', NODE, FIXTURES.dynamic));
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    const subscription = await client.listen({ toolsListChanged: true });
    try {
      await client.callTool({ name: 'add-tool', arguments: { name: 'heard-over-stdio' } });
      await waitFor(() => changed > 0, 10_000, 20, 'tools/list_changed on the listen stream');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('heard-over-stdio');
    } finally {
      await subscription.close();
      await client.close();
    }
  });

  // The upstream speaks 2026-07-28 too: its change comes on the proxy's own listen stream to it, and goes on to the
  // client's (the conformance reference server through --url once lost it).
  test.each([
    ['over stdio', () => ['--', NODE, FIXTURES.modern]],
    ['over HTTP', () => ['--url', modernHttp!]],
  ])('a listen stream hears that a 2026-07-28 upstream %s changed its tools', async (_label, args) => {
    const { client } = modernClient();
    await client.connect(stdio(...args()));
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    const subscription = await client.listen({ toolsListChanged: true });
    try {
      const name = `heard_${_label.replace(/\W/g, '_')}`;
      await client.callTool({ name: 'add_tool', arguments: { name } });
      await waitFor(() => changed > 0, 10_000, 20, 'tools/list_changed on the listen stream');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain(name);
    } finally {
      await subscription.close();
      await client.close();
    }
  });

  test('a listen stream hears of updates to the resources it names', async () => {
    const { client } = modernClient();
    await client.connect(stdio('--', NODE, FIXTURES.basic));
    const uri = 'fixture://basic/hello';
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
    });
    const subscribed = async () =>
      JSON.parse(texts(await client.callTool({ name: 'subscriptions', arguments: {} }))[0]!) as string[];
    const subscription = await client.listen({ resourceSubscriptions: [uri] });
    try {
      await waitFor(() => updated.length > 0, 10_000, 20, 'resources/updated on the listen stream');
      expect(new Set(updated)).toEqual(new Set([uri]));
    } finally {
      await subscription.close();
    }
    try {
      await waitFor(async () => (await subscribed()).length === 0, 10_000, 50, 'the upstream subscription to end');
    } finally {
      await client.close();
    }
  });

  test('an offloaded image is read back with resources/read', async () => {
    const { client } = modernClient();
    await client.connect(stdio('--', NODE, FIXTURES.artifact));
    try {
      const result = await client.callTool({ name: 'image', arguments: { tag: 'modern-stdio' } });
      const link = (result.content as Block[]).find((b) => b.type === 'resource_link');
      expect(link?.uri).toMatch(/^artifact:\/\//);
      const read = await client.readResource({ uri: link!.uri! });
      const blob = (read.contents[0] as { blob?: string }).blob!;
      expect(Buffer.from(blob, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      await client.close();
    }
  });
});

describe('a 2026-07-28 call answered late', () => {
  let gw: HttpGateway;

  beforeAll(async () => {
    gw = await startGateway({}, [{ name: 'slow', command: NODE, args: [FIXTURES.slow] }]);
  });

  afterAll(async () => {
    await gw.close();
  });

  test('is one JSON body with its own status, as the SDK answers, when it comes within a keep-alive interval', async () => {
    // A late answer on a stream opened by a timer would be an event of a 200 response: a late error that must be a
    // 400 (MissingRequiredClientCapabilityError, HeaderMismatch) would lose its status.
    const response = await postModern(gw.base, ALICE.token, 7, 'tools/call', {
      name: 'slow__slow',
      arguments: { ms: 300 },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({
      id: 7,
      result: { content: [{ type: 'text', text: 'done after 300ms' }] },
    });
  });

  test('a call quiet for a keep-alive interval gets its stream then, the answer its last event', async () => {
    const started = Date.now();
    const response = await postModern(gw.base, ALICE.token, 8, 'tools/call', {
      name: 'slow__slow',
      arguments: { ms: 18_000 },
    });
    // The headers came when the stream opened, before the answer: a load balancer sees the connection is alive.
    expect(Date.now() - started).toBeLessThan(18_000);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text).toContain('"done after 18000ms"');
  }, 40_000);
});
