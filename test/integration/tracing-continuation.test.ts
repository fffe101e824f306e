// A trace goes through the proxy: a real SDK v2 client over Streamable HTTP starts it (in `_meta.traceparent`, the MCP
// convention, or in the HTTP `traceparent` header), the proxy's request span continues it, and a real SDK v2 server
// over HTTP (test/fixtures/modern-server.mjs, meta_echo) gets the proxy's upstream span as its parent, in `_meta` and
// in the headers. With tracing off, the client's `_meta` reaches the server as it sent it, and no header is added.
import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpHandle } from '../../src/http/server.js';
import { silentLogger } from '../../src/logger.js';
import { FIXTURES, NODE, startListening } from '../helpers/fixtures.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { testConfig } from '../helpers/proxy.js';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
const TRACEPARENT_RE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

interface Echoed {
  _meta: Record<string, unknown>;
  headers: Record<string, string>;
}
const echoed = (result: unknown): Echoed =>
  JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text) as Echoed;

let upstream: ChildProcess;
let upstreamUrl: string;

beforeAll(async () => {
  const started = await startListening(NODE, [FIXTURES.modern, '--http', '0'], /listening (\d+)/);
  upstream = started.child;
  upstreamUrl = `http://127.0.0.1:${started.match[1]}/mcp`;
});

afterAll(() => {
  upstream?.kill('SIGTERM');
});

/** The gateway over HTTP in front of the fixture, tracing to `receiver` when given; and a client of it. */
async function startGateway(receiver: OtlpReceiver | undefined, headers: Record<string, string> = {}) {
  const config = testConfig([{ name: 'modern', url: upstreamUrl, protocol: 'modern' }]);
  if (receiver) config.tracing = { endpoint: receiver.endpoint, protocol: 'http/protobuf' };
  const gateway = new Gateway(config, silentLogger);
  await gateway.start();
  const http: HttpHandle = await serveHttp(gateway, { host: '127.0.0.1', port: 0 }, silentLogger);
  const client = new Client({ name: 'traced-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.port}/mcp`), { requestInit: { headers } }),
  );
  return {
    client,
    close: async () => {
      await client.close();
      await http.close();
      await gateway.stop();
    },
  };
}

describe('tracing on', () => {
  let receiver: OtlpReceiver;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });

  afterEach(async () => {
    await receiver.close();
  });

  test("the client's _meta.traceparent is continued, and the server's parent is the proxy's span", async () => {
    const gateway = await startGateway(receiver);
    const result = await gateway.client.callTool({
      name: 'meta_echo',
      arguments: {},
      _meta: { traceparent: TRACEPARENT, tracestate: 'vendor=1' },
    });
    await gateway.close();
    const got = echoed(result);
    const [, trace, parent] = TRACEPARENT_RE.exec(String(got._meta.traceparent))!;
    expect(trace).toBe(CLIENT_TRACE);
    expect(got._meta.tracestate).toBe('vendor=1');
    // Over HTTP the same context is in the headers.
    expect(got.headers).toEqual({ traceparent: got._meta.traceparent, tracestate: 'vendor=1' });

    const request = receiver.spans.find((s) => s.name === 'tools/call meta_echo' && s.kind === 2)!;
    expect(request).toMatchObject({ traceId: CLIENT_TRACE, parentSpanId: CLIENT_SPAN });
    expect(request.attributes['network.transport']).toBe('tcp');
    const outgoing = receiver.spans.find((s) => s.parentSpanId === request.spanId && s.kind === 3)!;
    expect(outgoing.spanId).toBe(parent);
    expect(outgoing.traceId).toBe(CLIENT_TRACE);
  }, 30_000);

  test('without _meta, the HTTP traceparent header is continued', async () => {
    const gateway = await startGateway(receiver, { traceparent: TRACEPARENT });
    const result = await gateway.client.callTool({ name: 'meta_echo', arguments: {} });
    await gateway.close();
    const [, trace] = TRACEPARENT_RE.exec(String(echoed(result)._meta.traceparent))!;
    expect(trace).toBe(CLIENT_TRACE);
    const request = receiver.spans.find((s) => s.name === 'tools/call meta_echo' && s.kind === 2)!;
    expect(request).toMatchObject({ traceId: CLIENT_TRACE, parentSpanId: CLIENT_SPAN });
  }, 30_000);

  test('a request without trace context starts a trace, which the server continues', async () => {
    const gateway = await startGateway(receiver);
    const result = await gateway.client.callTool({ name: 'meta_echo', arguments: {} });
    await gateway.close();
    const [, trace] = TRACEPARENT_RE.exec(String(echoed(result)._meta.traceparent))!;
    const request = receiver.spans.find((s) => s.name === 'tools/call meta_echo' && s.kind === 2)!;
    expect(request.parentSpanId).toBe('');
    expect(trace).toBe(request.traceId);
  }, 30_000);
});

describe('tracing off', () => {
  test("the client's _meta reaches the server as it was sent, and no trace header is added", async () => {
    const gateway = await startGateway(undefined);
    const result = await gateway.client.callTool({
      name: 'meta_echo',
      arguments: {},
      _meta: { traceparent: TRACEPARENT, tracestate: 'vendor=1' },
    });
    const plain = await gateway.client.callTool({ name: 'meta_echo', arguments: {} });
    await gateway.close();
    expect(echoed(result)._meta).toMatchObject({ traceparent: TRACEPARENT, tracestate: 'vendor=1' });
    expect(echoed(result).headers).toEqual({});
    expect(echoed(plain)._meta.traceparent).toBeUndefined();
    expect(echoed(plain).headers).toEqual({});
  }, 30_000);
});
