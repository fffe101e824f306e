// Traces exported to a real OTLP receiver (test/helpers/otlp-receiver.ts decodes what it gets), over both OTLP/HTTP
// encodings: one span per client request, children for the upstream call, the pipeline and the artifact store, the
// MCP semantic conventions' attributes and ours, and the status of a failed call.
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, cliEnv } from '../helpers/cli.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

describe.each(['http/protobuf', 'http/json'] as const)('tracing over %s', (protocol) => {
  let receiver: OtlpReceiver;
  let proxy: ProxyUnderTest;
  let spans: ReceivedSpan[];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const config = testConfig([
      { name: 'basic', command: NODE, args: [FIXTURES.basic, '--name', 'basic'] },
      { name: 'big', command: NODE, args: [FIXTURES.bigResult] },
      { name: 'slow', command: NODE, args: [FIXTURES.slow] },
    ]);
    config.tracing = { endpoint: receiver.endpoint, protocol, serviceName: 'offload-under-test' };
    proxy = await startProxy(config);
    await proxy.client.callTool({ name: 'basic__echo', arguments: { message: 'hi' } });
    await proxy.client.callTool({ name: 'basic__fail', arguments: { message: 'no' } });
    await proxy.client.callTool({ name: 'big__big-image', arguments: { mb: 2 } });
    await proxy.client.callTool({ name: 'basic__nope', arguments: {} }).catch(() => undefined);
    await proxy.client.listTools();
    await proxy.client.readResource({ uri: 'fixture://basic/static/1' }).catch(() => undefined);
    const abort = new AbortController();
    const hanging = proxy.client.callTool({ name: 'slow__hang', arguments: {} }, undefined, { signal: abort.signal });
    setTimeout(() => abort.abort('changed my mind'), 200);
    await hanging.catch(() => undefined);
    // Stopping the gateway shuts the SDK down, which exports every span still batched.
    await proxy.close();
    spans = receiver.spans;
  }, 60_000);

  afterAll(async () => {
    await receiver.close();
  });

  const named = (name: string) => spans.filter((s) => s.name === name);
  const childrenOf = (span: ReceivedSpan) => spans.filter((s) => s.parentSpanId === span.spanId);

  test('the receiver got them in that encoding, from the service named in the YAML', () => {
    expect(new Set(receiver.contentTypes)).toEqual(
      new Set([protocol === 'http/json' ? 'application/json' : 'application/x-protobuf']),
    );
    expect(spans.every((s) => s.encoding === (protocol === 'http/json' ? 'json' : 'protobuf'))).toBe(true);
    expect(spans[0]!.resource['service.name']).toBe('offload-under-test');
  });

  test('a tools/call is a server span with the MCP attributes, and the upstream call its client child', () => {
    const [request] = named('tools/call basic__echo');
    expect(request).toBeDefined();
    expect(request!.kind).toBe(SERVER);
    expect(request!.parentSpanId).toBe('');
    expect(request!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'basic__echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.session.id': expect.any(String),
      'mcp.protocol.version': expect.any(String),
      'jsonrpc.request.id': expect.any(String),
      'network.transport': 'pipe',
      'mcp_offload.server': 'basic',
      'mcp_offload.artifacts.stored': 0,
    });
    expect(request!.attributes['mcp_offload.request.bytes']).toBeGreaterThan(0);
    expect(request!.attributes['mcp_offload.response.bytes']).toBeGreaterThan(0);
    expect(request!.status.code).not.toBe(ERROR);
    const upstream = childrenOf(request!).find((s) => s.kind === CLIENT);
    expect(upstream).toMatchObject({
      name: 'tools/call echo',
      traceId: request!.traceId,
      attributes: expect.objectContaining({ 'gen_ai.tool.name': 'echo', 'mcp_offload.server': 'basic' }),
    });
    expect(childrenOf(request!).map((s) => s.name)).toContain('pipeline');
  });

  test('a stored payload: the pipeline span has the artifact store as its child, and the bytes say what it saved', () => {
    const [request] = named('tools/call big__big-image');
    expect(request!.attributes['mcp_offload.artifacts.stored']).toBe(1);
    const upstreamBytes = request!.attributes['mcp_offload.upstream.response.bytes'] as number;
    expect(upstreamBytes).toBeGreaterThan(2_000_000);
    expect(request!.attributes['mcp_offload.response.bytes']).toBeLessThan(upstreamBytes / 10);
    const pipeline = childrenOf(request!).find((s) => s.name === 'pipeline');
    const store = childrenOf(pipeline!).find((s) => s.name === 'artifact.store');
    expect(store).toMatchObject({ traceId: request!.traceId });
    expect(store!.attributes['mcp_offload.artifact.bytes']).toBeGreaterThan(2_000_000);
  });

  test("a tool's error result and a JSON-RPC error set the span's status", () => {
    const [failed] = named('tools/call basic__fail');
    expect(failed!.status.code).toBe(ERROR);
    expect(failed!.attributes['error.type']).toBe('tool_error');
    const [unknown] = named('tools/call basic__nope');
    expect(unknown!.status.code).toBe(ERROR);
    expect(unknown!.attributes['error.type']).toMatch(/^-32\d{3}$/);
  });

  test('a cancelled call: its span and its upstream call say so', () => {
    const [request] = named('tools/call slow__hang');
    expect(request!.status.code).toBe(ERROR);
    expect(request!.attributes['error.type']).toBe('cancelled');
    const upstream = childrenOf(request!).find((s) => s.kind === CLIENT);
    expect(upstream!.attributes['error.type']).toBe('cancelled');
  });

  test('every client request has its span: the handshake, lists, resources', () => {
    expect(named('initialize')).toHaveLength(1);
    expect(named('tools/list').length).toBeGreaterThanOrEqual(1);
    const [read] = spans.filter((s) => s.name.startsWith('resources/read '));
    expect(read!.attributes).toMatchObject({
      'mcp.method.name': 'resources/read',
      'mcp.resource.uri': expect.any(String),
    });
  });
});

describe('the CLI over stdio, configured by the OTEL_* variables alone', () => {
  test('exports over http/json to the endpoint and under the service name the variables give', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const client = new Client({ name: 'env-client', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: NODE,
          args: [CLI, '--', NODE, FIXTURES.basic, '--name', 'basic'],
          env: cliEnv({
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_SERVICE_NAME: 'from-env',
            OTEL_TRACES_SAMPLER: 'always_on',
          }),
        }),
      );
      await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
      // The client going away ends the proxy, which exports what it still holds on its way out.
      await client.close();
      await waitFor(() => receiver.spans.some((s) => s.name === 'tools/call echo' && s.kind === SERVER), 15_000);
      expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json']));
      const request = receiver.spans.find((s) => s.name === 'tools/call echo' && s.kind === SERVER)!;
      expect(request.resource['service.name']).toBe('from-env');
      expect(receiver.spans.some((s) => s.parentSpanId === request.spanId && s.kind === CLIENT)).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 30_000);
});
