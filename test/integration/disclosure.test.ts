// Progressive tool disclosure (issue 35) through the gateway: real stdio upstreams (fixtures and server-memory
// from npm), a real SDK client. In `search` the client sees three meta-tools; call_tool is the direct call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectLinear } from '../helpers/cli.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { connectAs, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { textOf } from '../helpers/results.js';
import { memory } from '../helpers/third-party.js';

const server = (name: string, fixture: string) => ({ name, command: NODE, args: [fixture, '--name', name] });
const names = (result: unknown) =>
  ((result as CallToolResult).structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);

describe('search disclosure', () => {
  let proxy: ProxyUnderTest;
  let dir: string;
  const call = (name: string, args: Record<string, unknown> = {}) =>
    proxy.client.callTool({ name: 'call_tool', arguments: { name, arguments: args } });
  const search = (query: string, limit?: number) =>
    proxy.client.callTool({ name: 'search_tools', arguments: { query, ...(limit ? { limit } : {}) } });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'disclosure-'));
    const config = testConfig(
      [
        server('alpha', FIXTURES.basic),
        server('slow', FIXTURES.slow),
        server('big', FIXTURES.bigResult),
        server('dyn', FIXTURES.dynamic),
        memory(join(dir, 'memory.jsonl')),
      ],
      { gateway: { disclosure: 'search' } },
    );
    proxy = await startProxy(config, {
      setup: (client) =>
        client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: 'yes' } })),
    });
  });
  afterAll(async () => {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('tools/list holds the three meta-tools, not the catalog', async () => {
    const { tools } = await proxy.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_tools', 'describe_tools', 'call_tool']);
  });

  test('search_tools finds tools from a task in plain words, with their schemas', async () => {
    const result = await search('add two numbers');
    expect(names(result)[0]).toBe('alpha__add');
    const tools = (result.structuredContent as { tools: { inputSchema: { properties: object } }[] }).tools;
    expect(Object.keys(tools[0]!.inputSchema.properties)).toEqual(['a', 'b']);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(names(await search('remember that Alice works at Acme'))).toContain('memory__add_observations');
    expect(names(await search('add two numbers', 1))).toHaveLength(1);
  });

  test("the proxy's own tools are searchable", async () => {
    expect(names(await search('read the content of an artifact the proxy stored'))).toContain('artifact_read');
  });

  test('describe_tools gives full definitions; an unknown name is a tool error', async () => {
    const described = await proxy.client.callTool({ name: 'describe_tools', arguments: { names: ['slow__progress'] } });
    expect(names(described)).toEqual(['slow__progress']);
    const unknown = await proxy.client.callTool({ name: 'describe_tools', arguments: { names: ['nope'] } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('"nope"');
  });

  test('call_tool returns exactly what the direct call returns', async () => {
    const direct = await proxy.client.callTool({ name: 'alpha__add', arguments: { a: 2, b: 3 } });
    expect(await call('alpha__add', { a: 2, b: 3 })).toEqual(direct);
    expect(textOf(direct)).toBe('5');
  });

  test('arguments are checked against the real schema first, naming the argument; the upstream is not called', async () => {
    const wrongType = await call('alpha__echo', { message: 5 });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/argument "message" must be string.*Nothing was called/);
    const missing = await call('alpha__echo', {});
    expect(textOf(missing)).toContain('missing required argument "message"');
    // server-memory's schemas (zod, as SDK v1 publishes them) are checked too; nothing reaches its graph.
    const nested = await call('memory__create_entities', { entities: [{ name: 'A', entityType: 'person' }] });
    expect(textOf(nested)).toContain('missing required argument "entities.0.observations"');
    expect(textOf(await call('memory__read_graph'))).not.toContain('"A"');
  });

  test('results go through the offload pipeline as a direct call', async () => {
    const direct = await proxy.client.callTool({ name: 'big__big-text', arguments: { mb: 1 } });
    const through = await call('big__big-text', { mb: 1 });
    expect(textOf(direct)).toContain('artifact://');
    expect(textOf(through)).toContain('artifact://');
    expect(textOf(through).length).toBeLessThan(20_000);
  });

  test('progress reaches the client', async () => {
    const steps: number[] = [];
    const result = await proxy.client.callTool(
      { name: 'call_tool', arguments: { name: 'slow__progress', arguments: { steps: 3 } } },
      undefined,
      { onprogress: (p) => steps.push(p.progress) },
    );
    expect(textOf(result)).toBe('completed 3 steps');
    expect(steps).toEqual([1, 2, 3]);
  });

  test('cancellation reaches the upstream', async () => {
    const controller = new AbortController();
    const pending = proxy.client.callTool(
      { name: 'call_tool', arguments: { name: 'slow__hang', arguments: {} } },
      undefined,
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort('enough'), 200);
    await expect(pending).rejects.toThrow();
    const cancelled = async () =>
      JSON.stringify((await proxy.client.callTool({ name: 'slow__cancellations' })).structuredContent);
    await waitFor(async () => (await cancelled()).includes('"tool":"hang"'));
  });

  test("an upstream's elicitation reaches the client and back", async () => {
    expect(textOf(await call('alpha__elicit', { message: 'go?' }))).toContain('"answer":"yes"');
  });

  test('an unknown tool fails as a direct call fails', async () => {
    const direct = await proxy.client.callTool({ name: 'alpha__nope' }).catch((e: Error) => e.message);
    const through = await call('alpha__nope').catch((e: Error) => e.message);
    expect(through).toBe(direct);
    expect(direct).toContain('not found');
  });

  test('a real tool name learned earlier still works', async () => {
    expect(textOf(await proxy.client.callTool({ name: 'alpha__whoami' }))).toBe('alpha');
  });

  test("an upstream's list_changed updates the index", async () => {
    expect(names(await search('zebra stripes painter'))).not.toContain('dyn__zebra_stripes_painter');
    await call('dyn__add-tool', { name: 'zebra_stripes_painter' });
    await waitFor(async () => names(await search('zebra stripes painter')).includes('dyn__zebra_stripes_painter'));
    expect(textOf(await call('dyn__zebra_stripes_painter'))).toBe('I am zebra_stripes_painter');
  });
});

describe('auto disclosure', () => {
  let proxy: ProxyUnderTest;
  const listed = async (name: string) =>
    (await (await connectAs(proxy.gateway, { name, version: '1' })).listTools()).tools.map((t) => t.name);
  afterEach(() => proxy.close());

  test('over the budget: search for a client without its own tool search, all for Claude Code', async () => {
    proxy = await startProxy(
      testConfig([server('alpha', FIXTURES.basic), server('beta', FIXTURES.basic)], {
        gateway: { disclosure: 'auto', disclosureBudget: 100 },
      }),
    );
    expect(await listed('some-agent')).toEqual(['search_tools', 'describe_tools', 'call_tool']);
    expect(await listed('claude-code')).toContain('alpha__add');
  });

  test('within the budget: all', async () => {
    proxy = await startProxy(
      testConfig([server('alpha', FIXTURES.basic), server('beta', FIXTURES.basic)], {
        gateway: { disclosure: 'auto', disclosureBudget: 1_000_000 },
      }),
    );
    expect(await listed('some-agent')).toContain('alpha__add');
  });
});

describe('all disclosure', () => {
  test('lists the catalog and answers no meta-tool', async () => {
    const proxy = await startProxy(testConfig([server('alpha', FIXTURES.basic), server('beta', FIXTURES.basic)]));
    try {
      const { tools } = await proxy.client.listTools();
      expect(tools.map((t) => t.name)).toContain('alpha__add');
      expect(tools.map((t) => t.name)).not.toContain('search_tools');
      await expect(proxy.client.callTool({ name: 'search_tools', arguments: { query: 'x' } })).rejects.toThrow(
        /not found/,
      );
    } finally {
      await proxy.close();
    }
  });
});

describe('the built CLI, --disclosure search over stdio', () => {
  test('the client lists the three meta-tools, and call_tool answers as the wrapped tool does', async () => {
    const conn = await connectLinear(['--log-level', 'warn', '--disclosure', 'search', NODE, FIXTURES.basic]);
    try {
      const { tools } = await conn.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['call_tool', 'describe_tools', 'search_tools']);
      const found = await conn.client.callTool({ name: 'search_tools', arguments: { query: 'add two numbers' } });
      expect(names(found)).toContain('add');
      const viaMeta = await conn.client.callTool({
        name: 'call_tool',
        arguments: { name: 'add', arguments: { a: 2, b: 3 } },
      });
      expect(viaMeta).toEqual(await conn.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
    } finally {
      await conn.close();
    }
  });
});
