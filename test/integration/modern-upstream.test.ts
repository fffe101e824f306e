// Upstreams of both eras: the proxy finds which era a server speaks (server/discover, falling back to initialize),
// speaks 2026-07-28 to a modern server (per-request envelope, input_required passed on raw, the notification stream)
// and the legacy era exactly as before to a legacy one, whatever the legacy server does with the probe.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../../src/config/types.js';
import { silentLogger } from '../../src/logger.js';
import { Upstream, type SendOptions, type UpstreamHooks } from '../../src/upstreams/upstream.js';
import { Frame } from '../../src/wire/frame.js';
import type { CatalogKind } from '../../src/upstreams/catalog-fetch.js';
import { NODE, startListening, waitFor } from '../helpers/fixtures.js';
import { makePng } from '../fixtures/pdf.mjs';
import { connectAs, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { connectLinear, stopAllCli, type LinearConnection } from '../helpers/cli.js';

const fixture = (file: string) => fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url));
const MODERN = fixture('modern-server.mjs');
const LEGACY_PROBE = fixture('legacy-probe-server.mjs');
const ARTIFACTS_META_KEY = 'mcp-offload/artifacts';

interface ModernHttp {
  url: string;
  child: ChildProcess;
  /** What the server has printed on stderr so far. */
  stderr: () => string;
}

async function startModernHttp(...options: string[]): Promise<ModernHttp> {
  const { match, child, stderr } = await startListening(NODE, [MODERN, '--http', '0', ...options], /listening (\d+)/);
  return { url: `http://127.0.0.1:${match[1]}/mcp`, child, stderr };
}

/** An upstream connection with hooks that record what it reports. */
function upstreamOf(server: Partial<ServerConfig> & ({ command: string; args: string[] } | { url: string })) {
  const config = testConfig([{ name: 'up', ...server } as never]).servers[0]!;
  const changes: CatalogKind[][] = [];
  const notifications: Frame[] = [];
  const hooks: UpstreamHooks = {
    request: (_upstream, _frame, reply) => reply(Frame.error(null, { code: -32601, message: 'no client here' })),
    notification: (_upstream, frame) => notifications.push(frame),
    catalogChanged: (_upstream, kinds) => changes.push(kinds),
    stateChanged: () => undefined,
  };
  return { upstream: new Upstream(config, hooks, silentLogger), changes, notifications };
}

/** A tools/call relayed as a client's request: the result the server answered, its long strings put back. */
const call = async (
  upstream: Upstream,
  params: Record<string, unknown>,
  options: SendOptions = {},
): Promise<Record<string, unknown>> => {
  const answer = await upstream.send(Frame.request('client-1', 'tools/call', { arguments: {}, ...params }), options);
  expect(answer.message.error).toBeUndefined();
  return answer.blobs.deliver(answer.message.result!);
};

let http: ModernHttp;

beforeAll(async () => {
  http = await startModernHttp();
});

afterAll(async () => {
  http.child.kill('SIGTERM');
  await stopAllCli();
});

describe.each([
  ['stdio', () => ({ command: NODE, args: [MODERN] })],
  ['Streamable HTTP', () => ({ url: http.url })],
])('a modern upstream over %s', (_transport, server) => {
  let upstream: Upstream;

  beforeAll(async () => {
    ({ upstream } = upstreamOf(server()));
    await upstream.start();
  });

  afterAll(async () => {
    await upstream.stop();
  });

  it('is spoken to in 2026-07-28', () => {
    expect(upstream.state).toBe('up');
    expect(upstream.era).toBe('modern');
    expect(upstream.protocolVersion).toBe('2026-07-28');
    expect(upstream.serverInfo).toEqual({ name: 'modern-fixture', version: '1.0.0' });
    expect(upstream.catalog.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'image', 'ask', 'meta_echo', 'slow_task']),
    );
  });

  it('answers with the result as the server sent it, resultType included', async () => {
    const result = await call(upstream, { name: 'echo', arguments: { text: 'hi' } });
    expect(result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'echo: hi' }],
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-fixture', version: '1.0.0' } },
    });
  });

  it('calls a tool whose arguments the server wants in Mcp-Param headers too', async () => {
    for (const region of ['eu-west', 'Zürich ']) {
      const result = await call(upstream, { name: 'region_echo', arguments: { region } });
      expect(result.content).toEqual([{ type: 'text', text: `region: ${region}` }]);
    }
  });

  it('passes input_required on raw, and the answers back with requestState untouched', async () => {
    const asked = await call(upstream, { name: 'ask' });
    expect(asked).toMatchObject({
      resultType: 'input_required',
      requestState: 'asked-for-name',
      inputRequests: { name: { method: 'elicitation/create', params: { message: 'What is your name?' } } },
    });
    const answered = await call(upstream, {
      name: 'ask',
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: asked.requestState,
    });
    expect(answered).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it("sends the downstream client's envelope and _meta with the request, and returns the result's _meta", async () => {
    await upstream.setLogLevel('debug');
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const result = await call(
      upstream,
      { name: 'meta_echo', _meta: { traceparent, tracestate: 'a=1', baggage: 'k=v' } },
      {
        envelope: {
          clientInfo: { name: 'downstream-client', version: '9.9.9' },
          clientCapabilities: { elicitation: { form: {} } },
          protocolVersion: '2025-06-18',
        },
      },
    );
    const seen = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as {
      _meta: Record<string, unknown>;
      envelope: Record<string, unknown>;
    };
    expect(seen._meta).toMatchObject({ traceparent, tracestate: 'a=1', baggage: 'k=v' });
    expect(seen.envelope).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'downstream-client', version: '9.9.9' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      'io.modelcontextprotocol/logLevel': 'debug',
    });
    expect((result._meta as Record<string, unknown>).traceparent).toBe(traceparent);
  });
});

describe.each([
  ['stdio', () => ({ command: NODE, args: [MODERN] })],
  ['Streamable HTTP', () => ({ url: http.url })],
])('a modern upstream over %s announcing changes on its notification stream', (_transport, server) => {
  let upstream: Upstream;
  let changes: CatalogKind[][];
  let notifications: Frame[];

  beforeAll(async () => {
    ({ upstream, changes, notifications } = upstreamOf(server()));
    await upstream.start();
  });

  afterAll(async () => {
    await upstream.stop();
  });

  it('re-lists its tools when the server says they changed', async () => {
    const name = `late_tool_${_transport.replace(/\W/g, '_')}`;
    await call(upstream, { name: 'add_tool', arguments: { name } });
    await waitFor(() => upstream.catalog.tools.some((t) => t.name === name), 10_000, 20, 'the new tool');
    expect(changes).toContainEqual(['tools']);
  });

  it('passes on updates of a resource a client subscribed to, and stops after unsubscribe', async () => {
    const uri = 'fixture://note';
    const subscribed = await upstream.request('resources/subscribe', { uri });
    upstream.trackSubscription(uri, true);
    expect(subscribed).toEqual({});
    await call(upstream, { name: 'touch', arguments: { uri } });
    const update = await waitFor(
      () => notifications.find((n) => n.method === 'notifications/resources/updated'),
      10_000,
      20,
      'the resource update',
    );
    expect(update!.params).toEqual({ uri });
    upstream.trackSubscription(uri, false);
    await upstream.request('resources/unsubscribe', { uri });
    notifications.length = 0;
    const before = changes.length;
    // The stream is open again without the URI: the next update is not sent, a list change still is.
    await call(upstream, { name: 'touch', arguments: { uri } });
    await call(upstream, { name: 'add_tool', arguments: { name: `marker_${_transport.replace(/\W/g, '_')}` } });
    await waitFor(() => changes.length > before, 10_000, 20, 'the list change after the update');
    expect(notifications.filter((n) => n.method === 'notifications/resources/updated')).toEqual([]);
  });
});

describe('a modern server that refuses the first protocol version it is asked for (-32022)', () => {
  it('is asked again with a version it names, and spoken to in 2026-07-28, not taken for legacy', async () => {
    const refusing = await startModernHttp('--refuse-first-version');
    const { upstream } = upstreamOf({ url: refusing.url });
    try {
      await upstream.start();
      expect(refusing.stderr()).toContain('refused server/discover 2026-07-28');
      expect(upstream.state).toBe('up');
      expect(upstream.era).toBe('modern');
      expect(upstream.protocolVersion).toBe('2026-07-28');
      const result = await call(upstream, { name: 'echo', arguments: { text: 'again' } });
      expect(result.content).toEqual([{ type: 'text', text: 'echo: again' }]);
    } finally {
      await upstream.stop();
      refusing.child.kill('SIGTERM');
    }
  });
});

describe('a modern stdio server slower to start than the probe timeout', () => {
  it('is taken for legacy, then spoken to in 2026-07-28 once its answer to the probe arrives', async () => {
    const { upstream } = upstreamOf({ command: NODE, args: [MODERN], probeTimeoutMs: 1 });
    try {
      await upstream.start();
      expect(upstream.state).toBe('up');
      expect(upstream.era).toBe('modern');
      expect(upstream.restarts).toBe(0);
      const asked = await call(upstream, { name: 'ask' });
      expect(asked.resultType).toBe('input_required');
    } finally {
      await upstream.stop();
    }
  });
});

describe('legacy stdio servers meeting the server/discover probe', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-offload-probe-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const received = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line);

  it.each(['error', 'silent', 'exit'])('a server that answers with %s is connected in the legacy era', async (how) => {
    const record = join(dir, `${how}.jsonl`);
    const { upstream } = upstreamOf({
      command: NODE,
      args: [LEGACY_PROBE, '--on-discover', how, '--record', record],
      probeTimeoutMs: 300,
    });
    try {
      await upstream.start();
      expect(upstream.state).toBe('up');
      expect(upstream.era).toBe('legacy');
      expect(upstream.protocolVersion).toBe('2025-11-25');
      expect(upstream.restarts).toBe(0);
      const result = await call(upstream, { name: 'echo', arguments: { text: how } });
      expect(result).toEqual({ content: [{ type: 'text', text: `echo: ${how}` }] });
      const methods = received(record).map((line) => (JSON.parse(line) as { method?: string }).method);
      expect(methods.slice(0, 2)).toEqual(['server/discover', 'initialize']);
    } finally {
      await upstream.stop();
    }
  });

  it('a server that exits on the probe after it timed out (it read the probe late) is connected too', async () => {
    const record = join(dir, 'exit-late.jsonl');
    const { upstream } = upstreamOf({
      command: NODE,
      args: [LEGACY_PROBE, '--on-discover', 'exit', '--record', record],
      probeTimeoutMs: 1,
    });
    try {
      await upstream.start();
      expect(upstream.state).toBe('up');
      expect(upstream.era).toBe('legacy');
      expect(upstream.restarts).toBe(0);
      expect(await call(upstream, { name: 'echo', arguments: { text: 'late' } })).toEqual({
        content: [{ type: 'text', text: 'echo: late' }],
      });
    } finally {
      await upstream.stop();
    }
  });

  it('sends no probe with protocol: legacy, and the same initialize as after a probe', async () => {
    const plain = join(dir, 'plain.jsonl');
    const probed = join(dir, 'probed.jsonl');
    const legacy = upstreamOf({ command: NODE, args: [LEGACY_PROBE, '--record', plain], protocol: 'legacy' });
    const auto = upstreamOf({ command: NODE, args: [LEGACY_PROBE, '--record', probed] });
    try {
      await Promise.all([legacy.upstream.start(), auto.upstream.start()]);
      expect(legacy.upstream.era).toBe('legacy');
      const first = received(plain)[0]!;
      expect((JSON.parse(first) as { method: string }).method).toBe('initialize');
      expect(received(plain).some((line) => line.includes('server/discover'))).toBe(false);
      // After the probe, the initialize is byte for byte the one a legacy-only connection sends, but for its id:
      // not the probe's, whose answer may still come (a late one must not be taken for the initialize's).
      const [probe, initialize] = received(probed).map((line) => JSON.parse(line) as { id: unknown });
      expect(initialize!.id).not.toEqual(probe!.id);
      const withoutId = (line: string) => line.replace(/^\{"jsonrpc":"2\.0","id":\d+,/, '{"jsonrpc":"2.0",');
      expect(withoutId(first)).not.toBe(first);
      expect(withoutId(received(probed)[1]!)).toBe(withoutId(first));
    } finally {
      await Promise.all([legacy.upstream.stop(), auto.upstream.stop()]);
    }
  });

  it('a server that exited on the probe is started once more and not probed again', async () => {
    const record = join(dir, 'exit-again.jsonl');
    const { upstream } = upstreamOf({
      command: NODE,
      args: [LEGACY_PROBE, '--on-discover', 'exit', '--record', record],
    });
    try {
      await upstream.start();
      expect(upstream.era).toBe('legacy');
      // A new connection to the same server (a restart, a client's own) goes straight to initialize.
      await upstream.reconnectAs({ clientInfo: { name: 'someone', version: '1' }, capabilities: {} });
      expect(upstream.state).toBe('up');
      const methods = received(record).map((line) => (JSON.parse(line) as { method?: string }).method);
      expect(methods.filter((m) => m === 'server/discover')).toHaveLength(1);
      expect(methods.filter((m) => m === 'initialize')).toHaveLength(2);
    } finally {
      await upstream.stop();
    }
  });
});

describe('through the gateway, with a legacy client, the server pinned to 2026-07-28', () => {
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    // Pinned, the legacy client is served from the modern connection (unpinned, a server of both eras gives it a
    // legacy one of its own: era-follow.test.ts).
    proxy = await startProxy(testConfig([{ name: 'modern', url: http.url, protocol: 'modern' }]));
  });

  afterAll(async () => {
    await proxy.close();
  });

  it('serves every client from the one connection: a modern remote server keeps no session', async () => {
    const second = await connectAs(proxy.gateway, { name: 'second-client', version: '1.0.0' });
    try {
      expect(proxy.gateway.pools[0]!.isolation).toBe('shared');
      const result = await second.callTool({ name: 'echo', arguments: { text: 'two' } }, CallToolResultSchema);
      expect(result.content).toEqual([{ type: 'text', text: 'echo: two' }]);
    } finally {
      await second.close();
    }
  });

  it('offloads an image from a modern server', async () => {
    const result = await proxy.client.callTool({ name: 'image', arguments: {} });
    expect(result._meta?.[ARTIFACTS_META_KEY]).toHaveLength(1);
    expect(JSON.stringify(result)).not.toContain(pngBase64Start());
  });

  it("passes a task handle on untouched and offloads the task's result fetched with tasks/get", async () => {
    // The server makes a task for a client that declares the tasks extension; the legacy client cannot declare
    // it, but the gateway's shared connection speaks as the proxy and the fixture does not gate on it.
    const handle = await proxy.client.request(
      { method: 'tools/call', params: { name: 'slow_task', arguments: { ms: 30 } } },
      ResultSchema.passthrough(),
    );
    expect(handle).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = String(handle.taskId);
    const done = await waitFor(
      async () => {
        const task = await proxy.client.request(
          { method: 'tasks/get', params: { taskId } },
          ResultSchema.passthrough(),
        );
        return task.status === 'completed' ? task : undefined;
      },
      10_000,
      20,
      'the task to complete',
    );
    const inlined = done!.result as Record<string, unknown>;
    expect((inlined._meta as Record<string, unknown>)[ARTIFACTS_META_KEY]).toHaveLength(1);
    expect(JSON.stringify(done)).not.toContain(pngBase64Start());
    expect(done).toMatchObject({ taskId, status: 'completed' });
  });
});

describe('through the gateway, a legacy server running a task (2025-11-25)', () => {
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    proxy = await startProxy(testConfig([{ name: 'legacy', command: NODE, args: [LEGACY_PROBE] }]));
  });

  afterAll(async () => {
    await proxy.close();
  });

  it("passes the task handle on untouched and offloads the task's result fetched with tasks/result", async () => {
    const handle = await proxy.client.request(
      { method: 'tools/call', params: { name: 'image', arguments: {}, task: { ttl: 60000 } } },
      ResultSchema.passthrough(),
    );
    expect(handle).toMatchObject({ task: { status: 'completed' } });
    expect(Object.keys(handle)).toEqual(['task']);
    const taskId = (handle.task as { taskId: string }).taskId;
    const result = await proxy.client.request(
      { method: 'tasks/result', params: { taskId } },
      ResultSchema.passthrough(),
    );
    const meta = result._meta as Record<string, unknown>;
    expect(meta[ARTIFACTS_META_KEY]).toHaveLength(1);
    expect(meta['io.modelcontextprotocol/related-task']).toEqual({ taskId });
    expect(JSON.stringify(result)).not.toContain(pngBase64Start());
  });
});

describe('the built proxy wrapping a modern server, with a legacy client', () => {
  const direct = async (url: string) => {
    const client = new Client({ name: 'direct', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  };

  it.each([
    ['stdio wrapper mode', () => ['--', NODE, MODERN]],
    ['a url upstream', () => ['--url', http.url]],
  ])('%s: echo as direct, the image offloaded', async (_how, args) => {
    let proxied: LinearConnection | undefined;
    const plain = await direct(http.url);
    try {
      proxied = await connectLinear(args());
      const viaProxy = await proxied.client.callTool(
        { name: 'echo', arguments: { text: 'same' } },
        CallToolResultSchema,
      );
      const viaDirect = await plain.callTool({ name: 'echo', arguments: { text: 'same' } }, CallToolResultSchema);
      expect(viaProxy.content).toEqual(viaDirect.content);
      const image = await proxied.client.callTool({ name: 'image', arguments: {} });
      expect(image._meta?.[ARTIFACTS_META_KEY]).toHaveLength(1);
    } finally {
      await plain.close();
      await proxied?.close();
    }
  });
});

/** The start of the fixture PNG's base64, which must not reach the client once the image is offloaded. */
function pngBase64Start(): string {
  return makePng(2000, 8).toString('base64').slice(0, 40);
}
