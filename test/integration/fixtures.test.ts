// Checks that every fixture server under test/fixtures/ behaves as advertised when
// spawned as a real process and driven by a plain SDK client (no proxy involved).
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Progress,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  closeAllDirect,
  connectFixture,
  EVERYTHING_ENTRY,
  FIXTURES,
  pidAlive,
  startEverythingHttp,
  waitFor,
} from '../helpers/fixtures.js';
import { freePort } from '../helpers/ports.js';
import { existsSync } from 'node:fs';
import net from 'node:net';

const MiB = 1024 * 1024;

afterEach(async () => {
  await closeAllDirect();
});

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe('text');
  return (content[0] as { text: string }).text;
}

async function allResources(client: Client): Promise<{ items: Resource[]; pages: number }> {
  const items: Resource[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listResources(cursor ? { cursor } : undefined);
    pages++;
    items.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor);
  return { items, pages };
}

test('all fixture files and the server-everything entry exist', () => {
  for (const file of Object.values(FIXTURES)) expect(existsSync(file)).toBe(true);
  expect(EVERYTHING_ENTRY).toMatch(/server-everything[\\/]dist[\\/]index\.js$/);
  expect(existsSync(EVERYTHING_ENTRY)).toBe(true);
});

test('freePort returns a port that can be bound on 127.0.0.1', async () => {
  const port = await freePort();
  expect(port).toBeGreaterThan(0);
  const srv = net.createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve());
  });
  expect((srv.address() as net.AddressInfo).port).toBe(port);
  await new Promise((r) => srv.close(r));
});

test('startEverythingHttp serves server-everything over Streamable HTTP', async () => {
  const server = await startEverythingHttp();
  const client = new Client({ name: 'http-check', version: '1.0.0' }, { capabilities: {} });
  try {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
  } finally {
    await client.close();
    await server.close();
  }
  expect(pidAlive(server.pid)).toBe(false);
});

describe('basic-server', () => {
  test('exposes its tools and answers them; prints ready pid= on stderr', async () => {
    const conn = await connectFixture('basic', [], { FIXTURE_TEST_VAR: 'set-by-test' });
    const { client } = conn;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'echo',
      'add',
      'whoami',
      'pid',
      'env',
      'fail',
      'log',
      'subscriptions',
      'initial-roots',
      'roots',
      'sample',
      'elicit',
    ]);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi there' } }))).toBe('hi there');
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }))).toBe('42');
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('basic');
    expect(textOf(await client.callTool({ name: 'env', arguments: { name: 'FIXTURE_TEST_VAR' } }))).toBe('set-by-test');
    expect(textOf(await client.callTool({ name: 'env', arguments: { name: 'FIXTURE_SURELY_UNSET' } }))).toBe('(unset)');
    const pid = Number(textOf(await client.callTool({ name: 'pid' })));
    expect(pid).toBe(conn.pid);
    const m = await conn.waitForStderr(/ready pid=(\d+)/);
    expect(Number(m[1])).toBe(pid);
    expect(client.getServerVersion()).toMatchObject({ name: 'basic' });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    });
  });

  test('--name and --tools select the identity and the tool subset', async () => {
    const { client } = await connectFixture('basic', ['--name', 'alpha', '--tools', 'whoami,add']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['whoami', 'add']);
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('alpha');
    await expect(client.callTool({ name: 'echo', arguments: { message: 'x' } })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('Unknown tool: echo'),
    });
  });

  test('tool errors: fail is an isError result, missing args a -32602 error', async () => {
    const { client } = await connectFixture('basic');
    const failed = await client.callTool({ name: 'fail', arguments: { message: 'boom' } });
    expect(failed).toEqual({ isError: true, content: [{ type: 'text', text: 'boom' }] });
    await expect(client.callTool({ name: 'add', arguments: { a: 1 } })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  test('resources/list pages one item at a time; following cursors yields all', async () => {
    const { client } = await connectFixture('basic', ['--name', 'pg', '--prefix-resources', 'demo']);
    const first = await client.listResources();
    expect(first.resources).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const { items, pages } = await allResources(client);
    expect(pages).toBe(2);
    expect(items.map((r) => r.uri)).toEqual(['demo://pg/hello', 'demo://pg/data.bin']);
    expect(items[1].mimeType).toBe('application/octet-stream');
    await expect(client.listResources({ cursor: 'bogus' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  test('resource reads: text, blob, template and not-found', async () => {
    const { client } = await connectFixture('basic');
    expect(await client.readResource({ uri: 'fixture://basic/hello' })).toEqual({
      contents: [{ uri: 'fixture://basic/hello', mimeType: 'text/plain', text: 'hello from basic' }],
    });
    const bin = await client.readResource({ uri: 'fixture://basic/data.bin' });
    const blob = (bin.contents[0] as { blob: string }).blob;
    expect([...Buffer.from(blob, 'base64')]).toEqual(Array.from({ length: 256 }, (_, i) => i));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'fixture://basic/items/{id}', name: 'item' }),
    ]);
    const item = await client.readResource({ uri: 'fixture://basic/items/42' });
    expect(item.contents).toEqual([
      { uri: 'fixture://basic/items/42', mimeType: 'text/plain', text: 'item 42 from basic' },
    ]);
    await expect(client.readResource({ uri: 'fixture://basic/nope' })).rejects.toMatchObject({ code: -32002 });
  });

  test('prompt greet and its completion', async () => {
    const { client } = await connectFixture('basic', ['--name', 'srv']);
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      {
        name: 'greet',
        description: 'Greet someone',
        arguments: [{ name: 'who', description: 'Who to greet', required: true }],
      },
    ]);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada, from srv' } }]);
    const ref = { type: 'ref/prompt' as const, name: 'greet' };
    expect((await client.complete({ ref, argument: { name: 'who', value: 'b' } })).completion.values).toEqual(['bob']);
    expect((await client.complete({ ref, argument: { name: 'who', value: '' } })).completion.values).toEqual([
      'alice',
      'bob',
      'carol',
    ]);
    expect((await client.complete({ ref, argument: { name: 'who', value: 'z' } })).completion.values).toEqual([]);
  });

  test('subscribe sends resources/updated every ~200 ms until unsubscribed', async () => {
    const { client } = await connectFixture('basic');
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    await client.subscribeResource({ uri: 'fixture://basic/hello' });
    await waitFor(() => updates.length >= 2, 3000, 20, 'two resource updates');
    expect(new Set(updates)).toEqual(new Set(['fixture://basic/hello']));
    await client.unsubscribeResource({ uri: 'fixture://basic/hello' });
    // Its timer is gone with the subscription, and an answer comes after any update already sent.
    expect(textOf(await client.callTool({ name: 'subscriptions' }))).toBe('[]');
    const settled = updates.length;
    await client.ping();
    expect(updates.length).toBe(settled);
    await expect(client.subscribeResource({ uri: 'fixture://basic/unknown' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  test('log tool sends notifications/message honoring logging/setLevel', async () => {
    const { client } = await connectFixture('basic');
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'log', arguments: { message: 'dropped', level: 'info' } });
    expect(textOf(await client.callTool({ name: 'log', arguments: { message: 'kept', level: 'error' } }))).toBe(
      'logged',
    );
    await waitFor(() => logs.length >= 1, 2000);
    expect(logs).toEqual([{ level: 'error', logger: 'basic', data: 'kept' }]);
  });

  test('sample, elicit and roots make server-to-client requests', async () => {
    const { client } = await connectFixture('basic');
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
      model: 'm',
      role: 'assistant',
      content: { type: 'text', text: `sampled ${JSON.stringify(req.params.messages[0].content)}` },
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: '42' } }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///r', name: 'r' }] }));
    expect(textOf(await client.callTool({ name: 'sample', arguments: { prompt: 'two+two' } }))).toBe(
      'sampled {"type":"text","text":"two+two"}',
    );
    expect(JSON.parse(textOf(await client.callTool({ name: 'elicit', arguments: { message: 'q?' } })))).toEqual({
      action: 'accept',
      content: { answer: '42' },
    });
    expect(JSON.parse(textOf(await client.callTool({ name: 'roots' })))).toEqual({
      roots: [{ uri: 'file:///r', name: 'r' }],
    });
  });

  test('a message over the default 10 MiB stdin limit makes it close and exit', async () => {
    const conn = await connectFixture('basic');
    const call = conn.client.callTool({ name: 'echo', arguments: { message: 'x'.repeat(11 * MiB) } });
    await expect(call).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await conn.waitForStderr(/ReadBuffer exceeded maximum size/);
    await waitFor(() => !pidAlive(conn.pid), 3000, 20, 'basic-server to exit');
  });

  test('exits when its stdin closes', async () => {
    const conn = await connectFixture('basic');
    await conn.close();
    expect(pidAlive(conn.pid)).toBe(false);
    expect(conn.stderr()).toContain('exiting: stdin closed');
  });
});

describe('crash-server', () => {
  test('ok and pid answer; crash closes the connection while in flight', async () => {
    const conn = await connectFixture('crash');
    expect(textOf(await conn.client.callTool({ name: 'ok' }))).toBe('ok');
    expect(Number(textOf(await conn.client.callTool({ name: 'pid' })))).toBe(conn.pid);
    const err = await conn.client.callTool({ name: 'crash' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect(err).toMatchObject({
      code: ErrorCode.ConnectionClosed,
      message: expect.stringMatching(/Connection closed/),
    });
    await conn.closed;
    expect(conn.stderr()).toContain('crashing');
    await waitFor(() => !pidAlive(conn.pid), 3000, 20, 'crash-server to exit');
  });

  test('crash-later answers first, then the process exits', async () => {
    const conn = await connectFixture('crash');
    expect(textOf(await conn.client.callTool({ name: 'crash-later', arguments: { ms: 150 } }))).toBe(
      'crashing in 150ms',
    );
    expect(conn.isClosed()).toBe(false);
    await conn.closed;
    expect(conn.stderr()).toContain('crashing');
    await expect(conn.client.callTool({ name: 'ok' })).rejects.toThrow(/Not connected/);
  });

  test('CRASH_ON_START=1 exits with code 2 before initialize', async () => {
    const err = await connectFixture('crash', [], { CRASH_ON_START: '1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/Connection closed/);
    expect((err as { stderr?: string }).stderr).toContain('crash on start');
  });
});

describe('noisy-stdout-server', () => {
  test('works despite junk lines on stdout; the SDK reports each junk line via onerror', async () => {
    const conn = await connectFixture('noisy');
    const { client } = conn;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'ok', 'pid']);
    const before = conn.errors.length;
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'through the noise' } }))).toBe(
      'through the noise',
    );
    expect(textOf(await client.callTool({ name: 'ok' }))).toBe('ok');
    // Per call: "debug: handling tools/call", {"log":...}, an empty line and "debug: sending ...".
    await waitFor(() => conn.errors.length >= before + 8, 2000, 20, 'junk-line errors');
    const messages = conn.errors.map((e) => e.message).join('\n');
    expect(messages).toMatch(/Unexpected token|is not valid JSON/); // banner and debug lines
    expect(messages).toMatch(/Unexpected end of JSON input/); // empty line
    expect(conn.errors.some((e) => e.name === 'ZodError')).toBe(true); // {"log":...} is JSON but not JSON-RPC
    expect(conn.stderr()).toMatch(/chatter/);
    expect(conn.stderr()).toMatch(/ready pid=\d+/);
  });
});

describe('slow-server', () => {
  test('slow answers after ms', async () => {
    const { client } = await connectFixture('slow');
    expect(textOf(await client.callTool({ name: 'slow', arguments: { ms: 100 } }))).toBe('done after 100ms');
  });

  test('an aborted call and a timed-out hang are recorded as cancellations', async () => {
    const { client } = await connectFixture('slow');
    const ac = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const call = client.callTool({ name: 'progress', arguments: { steps: 1000, intervalMs: 20 } }, undefined, {
      signal: ac.signal,
      onprogress: () => started(),
    });
    await running; // its first progress report: the server is working on it
    ac.abort('test abort');
    await expect(call).rejects.toThrow();
    await expect(client.callTool({ name: 'hang' }, undefined, { timeout: 200 })).rejects.toMatchObject({
      code: ErrorCode.RequestTimeout,
    });

    const read = async () => (await client.callTool({ name: 'cancellations' })) as CallToolResult;
    const result: CallToolResult = await waitFor(async () => {
      const r = await read();
      return (r.structuredContent as { cancellations: unknown[] }).cancellations.length >= 2 ? r : undefined;
    }, 3000).then((r) => r!);
    const recorded = (
      result.structuredContent as { cancellations: { requestId: number; tool: string; reason: string }[] }
    ).cancellations;
    expect(recorded.map((c) => c.tool)).toEqual(['progress', 'hang']);
    expect(recorded[0].reason).toContain('test abort');
    expect(JSON.parse(textOf(result))).toEqual(recorded.map((c) => c.requestId));
    expect(recorded.every((c) => typeof c.requestId === 'number')).toBe(true);
  });

  test('progress sends one notification per step with the caller token', async () => {
    const { client } = await connectFixture('slow');
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'progress', arguments: { steps: 3, intervalMs: 20 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(textOf(result)).toBe('completed 3 steps');
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  test('slow-progress needs a timeout that resets on progress', async () => {
    const { client } = await connectFixture('slow');
    const args = { name: 'slow-progress', arguments: { ms: 300, steps: 4 } };
    const seen: number[] = [];
    const ok = await client.callTool(args, undefined, {
      timeout: 800,
      resetTimeoutOnProgress: true,
      onprogress: (p) => seen.push(p.progress),
    });
    expect(textOf(ok)).toBe('completed 4 steps');
    expect(seen).toEqual([1, 2, 3, 4]);
    await expect(client.callTool(args, undefined, { timeout: 800, onprogress: () => {} })).rejects.toMatchObject({
      code: ErrorCode.RequestTimeout,
    });
  });
});

describe('dynamic-tools-server', () => {
  test('add-tool/remove-tool change the list and send tools/list_changed', async () => {
    const { client } = await connectFixture('dynamic');
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    expect(await names()).toEqual([
      'add-tool',
      'remove-tool',
      'add-prompt',
      'remove-prompt',
      'add-resource',
      'remove-resource',
      'list-names',
      'pid',
    ]);

    expect(textOf(await client.callTool({ name: 'add-tool', arguments: { name: 'zeta' } }))).toBe('added tool zeta');
    await waitFor(() => changes === 1, 2000, 20, 'tools/list_changed');
    expect(await names()).toContain('zeta');
    expect(textOf(await client.callTool({ name: 'zeta' }))).toBe('I am zeta');
    expect(JSON.parse(textOf(await client.callTool({ name: 'list-names' }))).tools).toContain('zeta');

    await client.callTool({ name: 'remove-tool', arguments: { name: 'zeta' } });
    await waitFor(() => changes === 2, 2000, 20, 'second tools/list_changed');
    expect(await names()).not.toContain('zeta');
    await expect(client.callTool({ name: 'zeta' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    expect(await client.callTool({ name: 'remove-tool', arguments: { name: 'add-tool' } })).toMatchObject({
      isError: true,
    });
  });

  test('add-prompt and add-resource send their list_changed notifications', async () => {
    const { client } = await connectFixture('dynamic');
    let prompts = 0;
    let resources = 0;
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      prompts++;
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      resources++;
    });
    expect((await client.listPrompts()).prompts).toEqual([]);
    expect((await client.listResources()).resources).toEqual([]);

    await client.callTool({ name: 'add-prompt', arguments: { name: 'p1' } });
    await waitFor(() => prompts === 1, 2000, 20, 'prompts/list_changed');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['p1']);
    expect((await client.getPrompt({ name: 'p1' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'I am prompt p1' } },
    ]);

    await client.callTool({ name: 'add-resource', arguments: { uri: 'dyn://x/r1' } });
    await waitFor(() => resources === 1, 2000, 20, 'resources/list_changed');
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['dyn://x/r1']);
    expect((await client.readResource({ uri: 'dyn://x/r1' })).contents).toEqual([
      { uri: 'dyn://x/r1', mimeType: 'text/plain', text: 'resource dyn://x/r1' },
    ]);
  });
});

describe('big-result-server', () => {
  // Just over the SDK's default 10 MiB: what the limits are about. 100 MiB both ways is cli.test.ts's.
  test('big-text of 12 MiB round-trips with a larger client maxBufferSize', async () => {
    const { client } = await connectFixture('bigResult', [], undefined, { maxBufferSize: 64 * MiB });
    const text = textOf(await client.callTool({ name: 'big-text', arguments: { mb: 12 } }));
    expect(text.length).toBe(12 * MiB);
    expect(/^x+$/.test(text)).toBe(true);
  });

  test('big-image is a PNG of the requested size', async () => {
    const { client } = await connectFixture('bigResult');
    const result = (await client.callTool({ name: 'big-image', arguments: { mb: 1 } })) as CallToolResult;
    expect(result.content).toHaveLength(1);
    const block = result.content[0] as { type: string; mimeType: string; data: string };
    expect(block).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const bytes = Buffer.from(block.data, 'base64');
    expect(bytes.length).toBe(MiB);
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect(bytes.subarray(bytes.length - 8, bytes.length - 4).toString('latin1')).toBe('IEND');
  });

  test('big-audio, big-embedded and mixed give the advertised blocks', async () => {
    const { client } = await connectFixture('bigResult', ['--name', 'bg']);
    const audio = (await client.callTool({ name: 'big-audio', arguments: { mb: 0.5 } })) as CallToolResult;
    const a = audio.content[0] as { type: string; mimeType: string; data: string };
    expect(a).toMatchObject({ type: 'audio', mimeType: 'audio/wav' });
    const wav = Buffer.from(a.data, 'base64');
    expect(wav.length).toBe(MiB / 2);
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');

    const emb = (await client.callTool({ name: 'big-embedded', arguments: { mb: 0.25 } })) as CallToolResult;
    const r = emb.content[0] as { type: string; resource: { uri: string; mimeType: string; blob: string } };
    expect(r.type).toBe('resource');
    expect(r.resource).toMatchObject({ uri: 'big://bg/embedded.bin', mimeType: 'application/octet-stream' });
    expect(Buffer.from(r.resource.blob, 'base64').length).toBe(MiB / 4);
    const embText = (await client.callTool({
      name: 'big-embedded',
      arguments: { mb: 0.25, kind: 'text' },
    })) as CallToolResult;
    expect((embText.content[0] as { resource: { text: string } }).resource.text.length).toBe(MiB / 4);

    const mixed = (await client.callTool({ name: 'mixed', arguments: { kb: 2 } })) as CallToolResult;
    expect(mixed.content.map((c) => c.type)).toEqual([
      'text',
      'image',
      'audio',
      'resource',
      'resource',
      'resource_link',
    ]);
    expect(Buffer.from((mixed.content[1] as { data: string }).data, 'base64').length).toBe(2048);
  });

  test('size-of accepts a 12 MiB argument, over the SDK default 10 MiB (its stdin limit is 512 MiB)', async () => {
    const { client } = await connectFixture('bigResult');
    const data = 'z'.repeat(12 * MiB);
    expect(
      textOf(await client.callTool({ name: 'size-of', arguments: { data } }, undefined, { timeout: 30_000 })),
    ).toBe(String(data.length));
  });
});
