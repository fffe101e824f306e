import {
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { listAll } from '../helpers/lists.js';
import { NO_OFFLOAD, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { textOf } from '../helpers/results.js';

const basic = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  command: NODE,
  args: [FIXTURES.basic, '--name', name],
  ...extra,
});

describe('two upstreams with default prefixes', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startProxy(testConfig([basic('alpha'), basic('beta')], { ...NO_OFFLOAD, gateway: { pageSize: 3 } }));
  });
  afterAll(() => proxy.close());

  test('tools and prompts are named <server>__<name>, in config order', async () => {
    const tools = (await listAll(proxy.client, 'tools')) as { name: string }[];
    const names = tools.map((t) => t.name);
    expect(names.slice(0, 2)).toEqual(['alpha__echo', 'alpha__add']);
    expect(names).toContain('beta__echo');
    expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
    const prompts = (await listAll(proxy.client, 'prompts')) as { name: string }[];
    expect(prompts.map((p) => p.name)).toEqual(['alpha__greet', 'beta__greet']);
  });

  test('calls reach the upstream the prefix names, under its own tool name', async () => {
    expect(textOf(await proxy.client.callTool({ name: 'alpha__whoami' }))).toBe('alpha');
    expect(textOf(await proxy.client.callTool({ name: 'beta__whoami' }))).toBe('beta');
    expect(textOf(await proxy.client.callTool({ name: 'beta__add', arguments: { a: 2, b: 3 } }))).toBe('5');
  });

  test('the proxy pages merged lists with its own cursors across upstreams', async () => {
    const first = await proxy.client.listResources();
    expect(first.resources).toHaveLength(3);
    expect(first.nextCursor).toBeDefined();
    const all = (await listAll(proxy.client, 'resources')) as { uri: string }[];
    expect(all.map((r) => r.uri)).toEqual([
      'fixture://alpha/hello',
      'fixture://alpha/data.bin',
      'fixture://beta/hello',
      'fixture://beta/data.bin',
    ]);
    const templates = (await listAll(proxy.client, 'resourceTemplates')) as { uriTemplate: string }[];
    expect(templates.map((t) => t.uriTemplate)).toEqual(['fixture://alpha/items/{id}', 'fixture://beta/items/{id}']);
  });

  test('resource reads go to the upstream that listed the URI or owns the template', async () => {
    const hello = await proxy.client.readResource({ uri: 'fixture://beta/hello' });
    expect(hello.contents[0]).toMatchObject({ text: 'hello from beta' });
    const blob = await proxy.client.readResource({ uri: 'fixture://alpha/data.bin' });
    expect(Buffer.from((blob.contents[0] as { blob: string }).blob, 'base64')).toEqual(
      Buffer.from([...Array(256).keys()]),
    );
    const item = await proxy.client.readResource({ uri: 'fixture://beta/items/42' });
    expect(item.contents[0]).toMatchObject({ text: 'item 42 from beta' });
    await expect(proxy.client.readResource({ uri: 'nowhere://x' })).rejects.toThrow(/not found/);
  });

  test('prompts and completions are routed by the prefixed name', async () => {
    const prompt = await proxy.client.getPrompt({ name: 'beta__greet', arguments: { who: 'Ada' } });
    expect(JSON.stringify(prompt.messages)).toContain('Hello, Ada, from beta');
    const completion = await proxy.client.complete({
      ref: { type: 'ref/prompt', name: 'alpha__greet' },
      argument: { name: 'who', value: 'b' },
    });
    expect(completion.completion.values).toEqual(['bob']);
    const ids = await proxy.client.complete({
      ref: { type: 'ref/resource', uri: 'fixture://beta/items/{id}' },
      argument: { name: 'id', value: '' },
    });
    expect(ids.completion.values).toEqual(['1', '2', '3']);
  });

  test('logging messages carry the server name and setLevel reaches every upstream', async () => {
    const messages: { logger?: string; level: string; data: unknown }[] = [];
    proxy.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    await proxy.client.setLoggingLevel('error');
    await proxy.client.callTool({ name: 'alpha__log', arguments: { message: 'quiet', level: 'info' } });
    await proxy.client.callTool({ name: 'beta__log', arguments: { message: 'loud', level: 'error' } });
    await waitFor(() => messages.length >= 1, 3000, 20, 'a logging message');
    expect(messages).toEqual([expect.objectContaining({ logger: 'beta/beta', level: 'error', data: 'loud' })]);
  });

  test('resource subscriptions deliver updates to the subscriber until it unsubscribes', async () => {
    const updates: string[] = [];
    proxy.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await proxy.client.subscribeResource({ uri: 'fixture://alpha/hello' });
    await waitFor(() => updates.length >= 2, 3000, 20, 'two resource updates');
    await proxy.client.unsubscribeResource({ uri: 'fixture://alpha/hello' });
    // The upstream holds no subscription any more, and its answer comes after any update it already sent.
    expect(textOf(await proxy.client.callTool({ name: 'alpha__subscriptions' }))).toBe('[]');
    const seen = updates.length;
    await proxy.client.ping();
    expect(updates.length).toBe(seen);
    expect(new Set(updates)).toEqual(new Set(['fixture://alpha/hello']));
  });
});

describe('prefix settings, collisions and filters', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startProxy(
      testConfig(
        [
          basic('first', { prefix: 'x', args: [FIXTURES.basic, '--name', 'first', '--tools', 'echo,whoami'] }),
          basic('second', { prefix: 'x', args: [FIXTURES.basic, '--name', 'second', '--tools', 'echo,whoami'] }),
          basic('third', { prefix: null, tools: { allow: ['who*', 'add'], deny: ['add'] } }),
        ],
        NO_OFFLOAD,
      ),
    );
  });
  afterAll(() => proxy.close());

  test('a name collision is resolved in config order, deterministically', async () => {
    const names = ((await listAll(proxy.client, 'tools')) as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(['x__echo', 'x__whoami', 'x__echo_2', 'x__whoami_2', 'whoami']);
    expect(textOf(await proxy.client.callTool({ name: 'x__whoami' }))).toBe('first');
    expect(textOf(await proxy.client.callTool({ name: 'x__whoami_2' }))).toBe('second');
    expect(textOf(await proxy.client.callTool({ name: 'whoami' }))).toBe('third');
  });

  test('tools outside the allow list, or denied, are neither listed nor callable', async () => {
    await expect(proxy.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toThrow(
      /Tool add not found/,
    );
    await expect(proxy.client.callTool({ name: 'echo', arguments: { message: 'm' } })).rejects.toThrow(/not found/);
  });
});

describe('list changes at run time', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startProxy(
      testConfig([basic('steady'), { name: 'dyn', command: NODE, args: [FIXTURES.dynamic] }], NO_OFFLOAD),
    );
  });
  afterAll(() => proxy.close());

  test('an upstream adding and removing a tool refreshes the catalog and notifies the client', async () => {
    let toolChanges = 0;
    let promptChanges = 0;
    proxy.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolChanges++);
    proxy.client.setNotificationHandler(PromptListChangedNotificationSchema, () => void promptChanges++);
    await proxy.client.callTool({ name: 'dyn__add-tool', arguments: { name: 'sparkle' } });
    await waitFor(() => toolChanges >= 1, 3000, 20, 'tools/list_changed');
    expect(textOf(await proxy.client.callTool({ name: 'dyn__sparkle' }))).toBe('I am sparkle');

    await proxy.client.callTool({ name: 'dyn__add-prompt', arguments: { name: 'hint' } });
    await waitFor(() => promptChanges >= 1, 3000, 20, 'prompts/list_changed');
    const prompts = ((await listAll(proxy.client, 'prompts')) as { name: string }[]).map((p) => p.name);
    expect(prompts).toContain('dyn__hint');

    await proxy.client.callTool({ name: 'dyn__remove-tool', arguments: { name: 'sparkle' } });
    await waitFor(() => toolChanges >= 2, 3000, 20, 'a second tools/list_changed');
    await expect(proxy.client.callTool({ name: 'dyn__sparkle' })).rejects.toThrow(/not found/);
  });

  test("the upstream's list_changed reaches the client even when its list reads back the same", async () => {
    let toolChanges = 0;
    proxy.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolChanges++);
    await proxy.client.callTool({ name: 'dyn__add-tool', arguments: { name: 'twice' } });
    await waitFor(() => toolChanges >= 1, 3000, 20, 'tools/list_changed');
    const before = await listAll(proxy.client, 'tools');
    // The same tool again: the server announces a change, and the list it then gives is the one before.
    await proxy.client.callTool({ name: 'dyn__add-tool', arguments: { name: 'twice' } });
    await waitFor(() => toolChanges >= 2, 3000, 20, 'the second tools/list_changed');
    expect(await listAll(proxy.client, 'tools')).toEqual(before);
  });
});

describe('requests from an upstream to a client that cannot serve them', () => {
  test('sampling, elicitation and roots get a clear error naming what the client lacks', async () => {
    const proxy = await startProxy(testConfig([basic('solo')], NO_OFFLOAD), { capabilities: {} });
    try {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        [
          'sample',
          { prompt: 'hi' },
          /the MCP client connected to mcp-offload does not support sampling \(sampling\/createMessage requested by upstream "solo"\)/,
        ],
        [
          'elicit',
          { message: 'name?' },
          /does not support elicitation \(elicitation\/create requested by upstream "solo"\)/,
        ],
        ['roots', {}, /does not support roots \(roots\/list requested by upstream "solo"\)/],
      ];
      for (const [name, args, expected] of cases) {
        // The fixture lets the error through as its own JSON-RPC error.
        const outcome = await proxy.client.callTool({ name, arguments: args }).then(
          (result) => `answered: ${textOf(result)}`,
          (error: Error) => error.message,
        );
        expect(outcome).toMatch(expected);
      }
    } finally {
      await proxy.close();
    }
  });
});

describe('an upstream that asks for roots as soon as it is initialized, before any client has connected', () => {
  const rootsOnInit = () => basic('solo', { args: [FIXTURES.basic, '--name', 'solo', '--roots-on-init'] });

  test('gets the roots of the client that connects later', async () => {
    const proxy = await startProxy(testConfig([rootsOnInit()], NO_OFFLOAD), {
      setup: (client) =>
        client.setRequestHandler(ListRootsRequestSchema, async () => ({
          roots: [{ uri: 'file:///work', name: 'work' }],
        })),
    });
    try {
      expect(JSON.parse(textOf(await proxy.client.callTool({ name: 'initial-roots' })))).toEqual({
        roots: [{ uri: 'file:///work', name: 'work' }],
      });
    } finally {
      await proxy.close();
    }
  });

  test('gets the error that the client which connects lacks roots, not "no client"', async () => {
    const proxy = await startProxy(testConfig([rootsOnInit()], NO_OFFLOAD), { capabilities: {} });
    try {
      const answer = JSON.parse(textOf(await proxy.client.callTool({ name: 'initial-roots' }))) as { error: string };
      expect(answer.error).toMatch(/the MCP client connected to mcp-offload does not support roots/);
    } finally {
      await proxy.close();
    }
  });
});
