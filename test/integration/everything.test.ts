import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EVERYTHING_ENTRY, connectDirect, startEverythingHttp } from '../helpers/fixtures.js';
import { ALL_CLIENT_CAPABILITIES, NO_OFFLOAD, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { listAll } from '../helpers/lists.js';

/** Tools server-everything registers only after it has seen the client's capabilities. */
const CONDITIONAL_TOOL = 'trigger-elicitation-request';

async function settled(client: Client): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const { tools } = await client.listTools();
    if (tools.some((t) => t.name === CONDITIONAL_TOOL)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server-everything never registered its conditional tools');
}

function installClientHandlers(client: Client): void {
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { name: 'Ada Lovelace', check: true, integer: 7 },
  }));
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    model: 'test-model',
    role: 'assistant',
    content: { type: 'text', text: `sampled: ${JSON.stringify(request.params.messages[0].content)}` },
  }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: 'file:///tmp/test-root', name: 'test root' }],
  }));
}

const DETERMINISTIC_CALLS: { name: string; arguments?: Record<string, unknown> }[] = [
  { name: 'echo', arguments: { message: 'hello through the proxy' } },
  { name: 'get-sum', arguments: { a: 2, b: 40 } },
  { name: 'get-tiny-image' },
  { name: 'get-annotated-message', arguments: { messageType: 'success', includeImage: true } },
  { name: 'get-resource-reference', arguments: { resourceType: 'Blob', resourceId: 2 } },
  { name: 'get-resource-reference', arguments: { resourceType: 'Text', resourceId: 3 } },
  { name: 'get-resource-links', arguments: { count: 3 } },
  { name: 'get-structured-content', arguments: { location: 'Chicago' } },
];

/**
 * Dynamic resources say when they were made ("created at 2:03:21 PM", also inside base64 blobs);
 * two reads may straddle a second, so the clock is taken out before comparing.
 */
function withoutClock(value: unknown): unknown {
  const clock = /\d{1,2}:\d{2}:\d{2}(\s?[AP]M)?/g;
  return JSON.parse(JSON.stringify(value), (key, item: unknown) => {
    if (typeof item !== 'string') return item;
    if (key === 'blob') return Buffer.from(item, 'base64').toString('latin1').replace(clock, '<time>');
    return item.replace(clock, '<time>');
  });
}

const RESOURCE_READS = [
  'demo://resource/static/document/architecture.md',
  'demo://resource/dynamic/text/1',
  'demo://resource/dynamic/blob/2',
];

interface DirectConnection {
  client: Client;
  close(): Promise<void>;
}

function describeAgainst(
  label: string,
  makeUpstream: () => Promise<{ proxy: ProxyUnderTest; direct: DirectConnection; stop?: () => Promise<void> }>,
) {
  describe(`server-everything over ${label}`, () => {
    let proxy: ProxyUnderTest;
    let direct: DirectConnection;
    let stop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ proxy, direct, stop } = await makeUpstream());
      await Promise.all([settled(proxy.client), settled(direct.client)]);
    });

    afterAll(async () => {
      await proxy?.close();
      await direct?.close();
      await stop?.();
    });

    test('tool, prompt, resource and template lists equal the direct ones', async () => {
      for (const kind of ['tools', 'prompts', 'resources', 'resourceTemplates'] as const) {
        expect(await listAll(proxy.client, kind)).toEqual(await listAll(direct.client, kind));
      }
    });

    test('the proxy mirrors the server identity and instructions', () => {
      expect(proxy.client.getServerVersion()).toEqual(direct.client.getServerVersion());
      expect(proxy.client.getInstructions()).toEqual(direct.client.getInstructions());
    });

    test.each(DETERMINISTIC_CALLS)('tools/call $name gives the same result', async (call) => {
      const [viaProxy, viaDirect] = await Promise.all([proxy.client.callTool(call), direct.client.callTool(call)]);
      expect(withoutClock(viaProxy)).toEqual(withoutClock(viaDirect));
    });

    test.each(RESOURCE_READS)('resources/read %s gives the same contents', async (uri) => {
      const [viaProxy, viaDirect] = await Promise.all([
        proxy.client.readResource({ uri }),
        direct.client.readResource({ uri }),
      ]);
      expect(withoutClock(viaProxy)).toEqual(withoutClock(viaDirect));
    });

    test('prompts and completions give the same results', async () => {
      const requests: { name: string; arguments?: Record<string, string> }[] = [
        { name: 'simple-prompt' },
        { name: 'args-prompt', arguments: { city: 'Paris', state: 'TX' } },
        { name: 'resource-prompt', arguments: { resourceType: 'Text', resourceId: '2' } },
      ];
      for (const request of requests) {
        const [viaProxy, viaDirect] = await Promise.all([
          proxy.client.getPrompt(request),
          direct.client.getPrompt(request),
        ]);
        expect(withoutClock(viaProxy)).toEqual(withoutClock(viaDirect));
      }
      const complete = {
        ref: { type: 'ref/prompt' as const, name: 'completable-prompt' },
        argument: { name: 'department', value: 'E' },
      };
      expect(await proxy.client.complete(complete)).toEqual(await direct.client.complete(complete));
    });

    test('progress of trigger-long-running-operation reaches the client under its own token', async () => {
      const progress: Progress[] = [];
      const result = await proxy.client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
        undefined,
        { onprogress: (p) => progress.push(p) },
      );
      expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
      expect(progress.every((p) => p.total === 3)).toBe(true);
      expect(JSON.stringify(result.content)).toContain('completed');
    });

    test('elicitation round-trips through the proxy to the client', async () => {
      const result = await proxy.client.callTool({ name: 'trigger-elicitation-request' });
      const text = JSON.stringify(result.content);
      expect(text).toContain('Ada Lovelace');
      expect(result.isError).toBeFalsy();
    });

    test('sampling round-trips through the proxy to the client', async () => {
      const result = await proxy.client.callTool({
        name: 'trigger-sampling-request',
        arguments: { prompt: 'two plus two' },
      });
      const text = JSON.stringify(result.content);
      expect(text).toContain('test-model');
      expect(text).toContain('two plus two');
    });

    test('roots/list round-trips through the proxy to the client', async () => {
      const result = await proxy.client.callTool({ name: 'get-roots-list' });
      expect(JSON.stringify(result.content)).toContain('file:///tmp/test-root');
    });

    test('an unknown tool gets the answer the upstream gives (a lone server answers for what it did not list)', async () => {
      const outcome = (call: Promise<unknown>) =>
        call.then(
          (result) => ({ result }),
          (error: unknown) => ({ error: String(error) }),
        );
      const call = { name: 'no-such-tool' };
      const [viaProxy, viaDirect] = await Promise.all([
        outcome(proxy.client.callTool(call)),
        outcome(direct.client.callTool(call)),
      ]);
      expect(JSON.stringify(viaProxy)).toMatch(/no-such-tool/);
      expect(viaProxy).toEqual(viaDirect);
    });
  });
}

describeAgainst('stdio', async () => {
  const proxy = await startProxy(
    testConfig([{ name: 'everything', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] }], NO_OFFLOAD),
    { setup: installClientHandlers },
  );
  const direct = await connectDirect(process.execPath, [EVERYTHING_ENTRY, 'stdio'], undefined, {
    capabilities: ALL_CLIENT_CAPABILITIES,
  });
  installClientHandlers(direct.client);
  return { proxy, direct };
});

describeAgainst('Streamable HTTP', async () => {
  const server = await startEverythingHttp();
  const proxy = await startProxy(testConfig([{ name: 'everything', url: server.url }], NO_OFFLOAD), {
    setup: installClientHandlers,
  });
  const client = new Client({ name: 'direct-client', version: '1.0.0' }, { capabilities: ALL_CLIENT_CAPABILITIES });
  installClientHandlers(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return { proxy, direct: { client, close: () => client.close() }, stop: server.close };
});
