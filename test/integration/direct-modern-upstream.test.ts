// A client's tools/call relayed to a 2026-07-28 server, as that server gets it: the envelope of the client who asks in
// the request's `_meta`, in this hop's protocol version (the client may speak 2025-11-25), next to the client's own
// `_meta`; over Streamable HTTP, the headers the revision requires (MCP-Protocol-Version, Mcp-Method, Mcp-Name) and an
// Mcp-Param-* header for each argument the tool declares one for. The server is the SDK v2 fixture in its own process
// (test/fixtures/modern-server.mjs: meta_echo echoes what it received), over stdio and over HTTP behind a tap that
// records each request it is sent; the gateway runs in this process, with a legacy client (in memory) and a
// 2026-07-28 client (over the gateway's HTTP endpoint).
import type { ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, type HttpHandle } from '../../src/http/server.js';
import { silentLogger } from '../../src/logger.js';
import { encodeParamValue } from '../../src/protocol/param-header-codec.js';
import { FIXTURES, NODE, startListening } from '../helpers/fixtures.js';
import { ALL_CLIENT_CAPABILITIES, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';

const MODERN = '2026-07-28';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

interface Seen {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** An HTTP forwarder in front of `target` that records each POST it passes on (headers and body), streams and all. */
async function startTap(target: string): Promise<{ url: string; posts: Seen[]; close(): Promise<void> }> {
  const to = new URL(target);
  const posts: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') posts.push({ headers: req.headers, body: JSON.parse(body.toString('utf8')) });
      const out = request(
        { hostname: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What meta_echo says it received: the request's `_meta`, and the envelope the SDK lifted out of it. */
function echoed(result: unknown): { _meta: Record<string, unknown>; envelope: Record<string, unknown> } {
  return JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text) as never;
}

/** The POSTs the tap saw for tools/call of `tool`. */
const callsOf = (posts: Seen[], tool: string) =>
  posts.filter((p) => p.body.method === 'tools/call' && (p.body.params as { name?: unknown }).name === tool);

let httpServer: ChildProcess;
let tap: Awaited<ReturnType<typeof startTap>>;

beforeAll(async () => {
  const started = await startListening(
    NODE,
    [FIXTURES.modern, '--http', '0', '--invalid-header-tool'],
    /listening (\d+)/,
  );
  httpServer = started.child;
  tap = await startTap(`http://127.0.0.1:${started.match[1]}/mcp`);
});

afterAll(async () => {
  await tap?.close();
  httpServer?.kill('SIGTERM');
});

// Pinned to 2026-07-28: unpinned, a server of both eras gives a legacy client a legacy connection of its own
// (era-follow.test.ts), and this is about the modern hop.
describe.each([
  [
    'stdio',
    () => ({
      name: 'modern',
      command: NODE,
      args: [FIXTURES.modern, '--invalid-header-tool'],
      protocol: 'modern' as const,
    }),
  ],
  ['Streamable HTTP', () => ({ name: 'modern', url: tap.url, protocol: 'modern' as const })],
])('a tools/call relayed to a 2026-07-28 server over %s', (transport, server) => {
  let proxy: ProxyUnderTest;
  let http: HttpHandle;
  let modern: Client;

  beforeAll(async () => {
    proxy = await startProxy(testConfig([server()]));
    http = await serveHttp(proxy.gateway, { host: '127.0.0.1', port: 0 }, silentLogger);
    modern = new Client(
      { name: 'modern-client', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } } },
    );
    await modern.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.port}/mcp`)));
  });

  afterAll(async () => {
    await modern?.close();
    await http?.close();
    await proxy?.close();
  });

  test('the upstream connection speaks 2026-07-28', () => {
    const upstream = proxy.gateway.upstreams[0]!;
    expect(upstream.era).toBe('modern');
    expect(upstream.protocolVersion).toBe(MODERN);
  });

  test("a legacy client's call carries what it said in initialize as the envelope, in this hop's version", async () => {
    const before = tap.posts.length;
    const result = await proxy.client.callTool(
      { name: 'meta_echo', arguments: {}, _meta: { traceparent: TRACEPARENT, tracestate: 'a=1' } },
      CallToolResultSchema,
    );
    const seen = echoed(result);
    expect(seen.envelope).toEqual({
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'test-client', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': ALL_CLIENT_CAPABILITIES,
    });
    expect(seen._meta).toMatchObject({ traceparent: TRACEPARENT, tracestate: 'a=1' });
    // The server's result _meta comes back to the client.
    expect(result._meta?.traceparent).toBe(TRACEPARENT);
    if (transport === 'Streamable HTTP') {
      const [post] = callsOf(tap.posts.slice(before), 'meta_echo');
      expect(post).toBeDefined();
      expect((post!.body.params as { _meta: Record<string, unknown> })._meta).toMatchObject({
        traceparent: TRACEPARENT,
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'test-client', version: '1.0.0' },
      });
    }
  });

  test("a 2026-07-28 client's call carries that client's own envelope, not the connection's", async () => {
    const result = await modern.callTool({ name: 'meta_echo', arguments: {}, _meta: { traceparent: TRACEPARENT } });
    const seen = echoed(result);
    expect(seen.envelope).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'modern-client', version: '2.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    });
    expect(seen._meta).toMatchObject({ traceparent: TRACEPARENT });
  });

  // SEP-2243 has an HTTP client leave out a tool whose x-mcp-header declarations break its rules: no call could carry
  // the header its server checks. Over stdio there are no headers, and the tool is served as any other.
  test(`a tool whose x-mcp-header sits on a number property is ${transport === 'stdio' ? 'kept' : 'left out'}`, async () => {
    const before = tap.posts.length;
    const names = (await proxy.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('region_echo');
    const call = proxy.client.callTool({ name: 'score_echo', arguments: { score: 7 } }, CallToolResultSchema);
    if (transport === 'stdio') {
      expect(names).toContain('score_echo');
      expect((await call).content).toEqual([{ type: 'text', text: 'score: 7' }]);
    } else {
      // Not listed, and not called when a client names it anyway (a lone server is sent names it did not list).
      expect(names).not.toContain('score_echo');
      await expect(call).rejects.toThrow(/score_echo is left out \(SEP-2243\): score: x-mcp-header is allowed only/);
      expect(callsOf(tap.posts.slice(before), 'score_echo')).toEqual([]);
    }
  });

  if (transport === 'Streamable HTTP') {
    test('the POST carries MCP-Protocol-Version, Mcp-Method and Mcp-Name', async () => {
      const before = tap.posts.length;
      await proxy.client.callTool({ name: 'meta_echo', arguments: {} }, CallToolResultSchema);
      const [post] = callsOf(tap.posts.slice(before), 'meta_echo');
      expect(post!.headers['mcp-protocol-version']).toBe(MODERN);
      expect(post!.headers['mcp-method']).toBe('tools/call');
      expect(post!.headers['mcp-name']).toBe('meta_echo');
      // A tool that declares no x-mcp-header gets no Mcp-Param header.
      expect(Object.keys(post!.headers).filter((name) => name.startsWith('mcp-param-'))).toEqual([]);
    });

    test.each([
      ['a plain value as it is', 'eu-west', 'eu-west'],
      ['a value HTTP cannot carry plain, Base64-wrapped', 'Zürich ☃', encodeParamValue('Zürich ☃')],
    ])('a declared argument goes in its Mcp-Param header: %s', async (_, region, header) => {
      const before = tap.posts.length;
      for (const client of ['legacy', 'modern'] as const) {
        const result =
          client === 'legacy'
            ? await proxy.client.callTool({ name: 'region_echo', arguments: { region } }, CallToolResultSchema)
            : await modern.callTool({ name: 'region_echo', arguments: { region } });
        // The server checks the header against the argument (SEP-2243): a missing or different one is refused.
        expect(result.isError).toBeFalsy();
        expect(result.content).toEqual([{ type: 'text', text: `region: ${region}` }]);
      }
      const posts = callsOf(tap.posts.slice(before), 'region_echo');
      expect(posts).toHaveLength(2);
      for (const post of posts) {
        expect(post.headers['mcp-param-region']).toBe(header);
        expect(post.headers['mcp-name']).toBe('region_echo');
      }
      if (header !== region) expect(header).toMatch(/^=\?base64\?/);
    });
  }
});
