// A 2026-07-28 client's POST of a plain tools/call to a legacy-era upstream is served past the SDK's stateless entry
// (http/lean-modern-post.ts) and answered as the entry answers it. The gateway, its HTTP server and the upstreams are
// the real ones, over real sockets; a wrapper on each session's Server records what the SDK dispatched. Each case
// sends the same call twice: once as a client sends it, once with its Mcp-Name in the Base64 form the SDK decodes and
// the lean path leaves to it, and compares the two answers byte for byte.
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RequestId } from '@modelcontextprotocol/server';
import type { ChildProcess } from 'node:child_process';
import { DirectRequests } from '../../src/fast-path/direct-requests.js';
import { HttpPoster } from '../../src/fast-path/http-post.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import { encodeParamValue } from '../../src/protocol/param-header-codec.js';
import { FIXTURES, NODE, startListening, waitFor } from '../helpers/fixtures.js';
import { startHttpGateway, type HttpGateway } from '../helpers/http-gateway.js';
import { expectClientEnvelope, withoutProgressToken } from '../helpers/modern-echo.js';
import { makeSolidPng } from '../fixtures/pdf.mjs';
import { recordServedBy, type ServedBy } from '../helpers/served-by.js';

const MODERN = '2026-07-28';
const MODERN_SERVER = new URL('../fixtures/modern-server.mjs', import.meta.url).pathname;

const envelope = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  ...extra,
});

/** The Mcp-Name form the SDK decodes (its Base64 sentinel): the same name, a POST the lean path leaves to the SDK. */
const base64Name = (name: string) => `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;

interface Answer {
  status: number;
  type: string | null;
  length: string | null;
  text: string;
}

let gateway: Gateway;
let running: HttpGateway;
let endpoint: string;
let served: ServedBy;
let modernHttp: ChildProcess;

beforeAll(async () => {
  const started = await startListening(NODE, [MODERN_SERVER, '--http', '0'], /listening (\d+)/);
  modernHttp = started.child;
  running = await startHttpGateway(
    [
      { name: 'basic', command: NODE, args: [FIXTURES.basic] },
      { name: 'slow', command: NODE, args: [FIXTURES.slow] },
      { name: 'modern', command: NODE, args: [MODERN_SERVER] },
      { name: 'mh', url: `http://127.0.0.1:${started.match[1]}/mcp` },
    ],
    (made) => (served = recordServedBy(made)),
  );
  ({ gateway, endpoint } = running);
});

afterAll(async () => {
  await running.close();
  modernHttp.kill('SIGTERM');
});

/** POSTs a 2026-07-28 request as a client sends it; `headers` replace or add to the standard ones (null: left out). */
async function post(
  id: RequestId,
  params: Record<string, unknown>,
  headers: Record<string, string | null> = {},
  signal?: AbortSignal,
): Promise<Answer> {
  const all: Record<string, string | null> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': String(params.name),
    ...headers,
  };
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== null)),
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    ...(signal ? { signal } : {}),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    length: response.headers.get('content-length'),
    text: await response.text(),
  };
}

/** The same call served past the SDK (`lean`) and by the SDK (`sdk`), with which requests the SDK dispatched. */
async function bothWays(
  params: Record<string, unknown>,
  ids: [RequestId, RequestId],
  headers: Record<string, string> = {},
) {
  served.clear();
  const lean = await post(ids[0], params, headers);
  const sdk = await post(ids[1], params, { ...headers, 'mcp-name': base64Name(String(params.name)) });
  return { lean, sdk, sdkServed: [...served.sdkServed], lane: [...served.laneTaken] };
}

/** The answer with the request's id set aside: `"id":<id>` is the one place two answers to the same call differ. */
const withoutId = (answer: Answer, id: RequestId) => answer.text.split(JSON.stringify(id)).join('ID');

describe('a 2026-07-28 POST past the SDK', () => {
  test.each([
    ['a result', { name: 'basic__echo', arguments: { message: 'hello ü 😀 \u2028' } }, true],
    ['an error result', { name: 'basic__fail', arguments: { message: 'on purpose' } }, true],
    ['an unknown tool', { name: 'nope', arguments: {} }, false],
    [
      'other _meta keys',
      { name: 'basic__echo', arguments: { message: 'x' }, _meta: { traceparent: 't-1', x: 1 } },
      true,
    ],
    ['a string id', { name: 'basic__echo', arguments: { message: 'string id' } }, true],
    ['a call of the proxy’s own tool', { name: 'artifact_list', arguments: {} }, false],
  ])('%s: not dispatched by the SDK, and the same answer, as one JSON body', async (label, call, byLane) => {
    const params = { ...call, _meta: envelope((call as { _meta?: Record<string, unknown> })._meta) };
    const ids: [RequestId, RequestId] = label === 'a string id' ? ['lean-1', 'sdk-1'] : [101, 102];
    const { lean, sdk, sdkServed, lane } = await bothWays(params, ids);
    expect(sdkServed).toEqual([ids[1]]);
    // The lane takes what it can of the first; the SDK's server hands the second to the handler.
    expect(lane).toEqual(byLane ? [ids[0]] : []);
    expect(lean.status).toBe(sdk.status);
    expect(lean.type).toBe('application/json');
    expect(sdk.type).toBe('application/json');
    expect(withoutId(lean, ids[0])).toBe(withoutId(sdk, ids[1]));
    // One body with its length, where the SDK's Node adapter streams its Response.
    expect(Number(lean.length)).toBe(Buffer.byteLength(lean.text));
    const answer = JSON.parse(lean.text) as { result?: Record<string, unknown> };
    if (answer.result) {
      expect(answer.result.resultType).toBe('complete');
      expect((answer.result._meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo']).toMatchObject({
        name: 'mcp-offload',
      });
    }
  });

  test('progress before the answer makes the answer an SSE stream, frame for frame as the SDK writes it', async () => {
    const params = (token: string) => ({
      name: 'slow__progress',
      arguments: { steps: 3, intervalMs: 10 },
      _meta: envelope({ progressToken: token }),
    });
    served.clear();
    const lean = await post(201, params('tok'));
    const sdk = await post(202, params('tok'), { 'mcp-name': base64Name('slow__progress') });
    expect(served.sdkServed).toEqual([202]);
    // A progress token needs the handler, which orders progress before the result.
    expect(served.laneTaken).toEqual([]);
    expect(lean.type).toBe('text/event-stream');
    expect(sdk.type).toBe('text/event-stream');
    expect(withoutId(lean, 201)).toBe(withoutId(sdk, 202));
    const frames = lean.text.split('\n\n').filter(Boolean);
    expect(frames).toHaveLength(4);
    expect(frames.slice(0, 3).map((f) => JSON.parse(f.replace(/^event: message\ndata: /, '')).params.progress)).toEqual(
      [1, 2, 3],
    );
  });

  test('a log message the call asked for (logLevel) comes on its stream, as through the SDK', async () => {
    const params = {
      name: 'basic__log',
      arguments: { message: 'to the call', level: 'warning' },
      _meta: envelope({ 'io.modelcontextprotocol/logLevel': 'info' }),
    };
    const { lean, sdk, sdkServed, lane } = await bothWays(params, [301, 302]);
    expect(sdkServed).toEqual([302]);
    expect(lane).toEqual([]);
    expect(lean.type).toBe('text/event-stream');
    expect(withoutId(lean, 301)).toBe(withoutId(sdk, 302));
    expect(lean.text).toContain('"method":"notifications/message"');
    expect(lean.text).toContain('to the call');
  });

  test("a legacy server's question becomes input_required past the SDK; the retry goes through the SDK", async () => {
    served.clear();
    const params = { name: 'basic__elicit', arguments: { message: 'Your answer?' }, _meta: envelope() };
    const asked = JSON.parse((await post(401, params)).text) as {
      result: { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    };
    expect(asked.result.resultType).toBe('input_required');
    const [key] = Object.keys(asked.result.inputRequests);
    const done = await post(402, {
      ...params,
      inputResponses: { [key!]: { action: 'accept', content: { answer: 'forty-two' } } },
      requestState: asked.result.requestState,
    });
    expect(done.text).toContain('forty-two');
    expect(JSON.parse(done.text).result.resultType).toBe('complete');
    expect(served.sdkServed).toEqual([402]);
    // The relay lane sent the call; the question made the bridge hold it for the retry.
    expect(served.laneTaken).toEqual([401]);
  });

  test("a question the client's capabilities do not allow: refused upstream, the same answer either way", async () => {
    const params = {
      name: 'basic__elicit',
      arguments: { message: 'Your answer?' },
      _meta: envelope({ 'io.modelcontextprotocol/clientCapabilities': {} }),
    };
    const { lean, sdk, sdkServed, lane } = await bothWays(params, [451, 452]);
    expect(sdkServed).toEqual([452]);
    expect(lane).toEqual([451]);
    expect(withoutId(lean, 451)).toBe(withoutId(sdk, 452));
    expect(lean.text).toContain('does not support elicitation');
  });

  test('a client that goes away cancels the call upstream', async () => {
    served.clear();
    const abort = new AbortController();
    const pending = post(501, { name: 'slow__hang', arguments: {}, _meta: envelope() }, {}, abort.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    abort.abort();
    await expect(pending).rejects.toThrow();
    const cancelled = async () => {
      const answer = await post(502, { name: 'slow__cancellations', arguments: {}, _meta: envelope() });
      return (JSON.parse(answer.text) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
    };
    await waitFor(async () => (JSON.parse(await cancelled()) as unknown[]).length > 0, 5_000);
    expect(served.sdkServed).toEqual([]);
    expect(served.laneTaken).toContain(501);
  });

  test.each([
    ['a result', { name: 'modern__echo', arguments: { text: 'modern ü 😀' } }],
    ['its input_required, as it came', { name: 'modern__ask', arguments: {} }],
    ['its result _meta', { name: 'modern__meta_echo', arguments: {}, _meta: { traceparent: 't-9' } }],
  ])("a 2026-07-28 upstream's call, %s: past the SDK on both sides, and the same answer", async (label, call) => {
    const params = { ...call, _meta: envelope((call as { _meta?: Record<string, unknown> })._meta) };
    const direct = jest.spyOn(DirectRequests.prototype, 'send');
    const reported: string[] = [];
    const stop = gateway.events.on('call', ({ tool, outcome }) => void reported.push(`${tool} ${outcome}`));
    const { lean, sdk, sdkServed, lane } = await bothWays(params, [601, 602]);
    stop();
    // A request for input is no result yet: neither way reports the call (its retry does).
    const tool = call.name.slice('modern__'.length);
    expect(reported).toEqual(label === 'its input_required, as it came' ? [] : [`${tool} ok`, `${tool} ok`]);
    // Both went to the upstream past the SDK's client as well.
    expect(direct.mock.calls.map(([method, sent]) => `${method} ${String(sent?.name)}`)).toEqual(
      Array(2).fill(`tools/call ${call.name.slice('modern__'.length)}`),
    );
    direct.mockRestore();
    expect(sdkServed).toEqual([602]);
    // The relay lane takes the first; the SDK's server hands the second to the handler.
    expect(lane).toEqual([601]);
    expect(lean.status).toBe(200);
    expect(lean.type).toBe('application/json');
    // The upstream sees the proxy's progress token, one per call: the one difference between the two answers.
    expect(withoutProgressToken(withoutId(lean, 601))).toBe(withoutProgressToken(withoutId(sdk, 602)));
    const { result } = JSON.parse(lean.text) as { result: Record<string, unknown> };
    if (label === 'a result')
      expect(result).toMatchObject({ resultType: 'complete', content: [{ text: 'echo: modern ü 😀' }] });
    if (label === 'its input_required, as it came') {
      expect(result).toMatchObject({ resultType: 'input_required', requestState: 'asked-for-name' });
      expect(Object.keys(result.inputRequests as object)).toEqual(['name']);
    }
    if (label === 'its result _meta') {
      expect((result._meta as Record<string, unknown>).traceparent).toBe('t-9');
      // The upstream got the call in its era, with the client's own envelope (sent past the SDK's client too).
      expectClientEnvelope(result);
    }
  });

  test.each([
    ['a result', { name: 'mh__echo', arguments: { text: 'over HTTP' } }],
    ['a declared argument (its Mcp-Param header)', { name: 'mh__region_echo', arguments: { region: 'Zürich ☃' } }],
    ['its input_required, as it came', { name: 'mh__ask', arguments: {} }],
  ])(
    "a 2026-07-28 Streamable HTTP upstream's call, %s: on Node's HTTP client, the same answer",
    async (label, call) => {
      const params = { ...call, _meta: envelope() };
      const posted = jest.spyOn(HttpPoster.prototype, 'post');
      // The proxy lists the tool with its declaration, so the client mirrors the argument to the proxy too.
      const region = (call.arguments as { region?: string }).region;
      const headers: Record<string, string> = region ? { 'mcp-param-region': encodeParamValue(region) } : {};
      const { lean, sdk, sdkServed, lane } = await bothWays(params, [801, 802], headers);
      // Both went upstream past the SDK's client and its transport: the lane's, and the handler's.
      expect(posted).toHaveBeenCalledTimes(2);
      posted.mockRestore();
      expect(sdkServed).toEqual([802]);
      expect(lane).toEqual([801]);
      expect(lean.status).toBe(200);
      expect(withoutProgressToken(withoutId(lean, 801))).toBe(withoutProgressToken(withoutId(sdk, 802)));
      const { result } = JSON.parse(lean.text) as { result: Record<string, unknown> };
      if (label === 'a result')
        expect(result).toMatchObject({ resultType: 'complete', content: [{ text: 'echo: over HTTP' }] });
      if (label.startsWith('a declared')) expect(result).toMatchObject({ content: [{ text: 'region: Zürich ☃' }] });
      if (label.startsWith('its input_required')) expect(result).toMatchObject({ resultType: 'input_required' });
    },
  );

  test("a 2026-07-28 server's task handle: passed on by the lane, its result fetched with tasks/get and offloaded", async () => {
    served.clear();
    const started = JSON.parse(
      (await post(901, { name: 'mh__slow_task', arguments: { ms: 30 }, _meta: envelope() })).text,
    ) as { result: { resultType: string; taskId: string; status: string } };
    expect(served.laneTaken).toEqual([901]);
    expect(started.result).toMatchObject({ resultType: 'task', status: 'working' });
    const { taskId } = started.result;
    // tasks/get goes to the upstream that started the task, which the lane noted: four upstreams could serve it.
    let n = 0;
    const done = await waitFor(async () => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tasks/get',
          'mcp-name': taskId,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 910 + n++,
          method: 'tasks/get',
          params: { taskId, _meta: envelope() },
        }),
      });
      const { result } = (await response.json()) as { result?: { status?: string } & Record<string, unknown> };
      return result?.status === 'completed' ? result : undefined;
    }, 10_000);
    expect(done).toMatchObject({ taskId, status: 'completed' });
    const inlined = done!.result as { _meta: Record<string, unknown> };
    expect(inlined._meta['mcp-offload/artifacts']).toHaveLength(1);
    // The picture went to the store: what reached the client holds none of its bytes.
    expect(JSON.stringify(done)).not.toContain(makeSolidPng(2000, 8).toString('base64').slice(0, 40));
  });

  test("a 2026-07-28 upstream's input_required, answered: the retry goes through the SDK and gets the result", async () => {
    served.clear();
    const params = { name: 'modern__ask', arguments: {}, _meta: envelope() };
    const asked = JSON.parse((await post(651, params)).text) as { result: { requestState: string } };
    const done = await post(652, {
      ...params,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: asked.result.requestState,
    });
    expect(JSON.parse(done.text).result).toMatchObject({ resultType: 'complete', content: [{ text: 'Hello, Ada!' }] });
    expect(served.sdkServed).toEqual([652]);
  });

  test.each([
    ['an Mcp-Name that names another tool', {}, { 'mcp-name': 'basic__fail' }, /Mcp-Name header names/],
    ['no MCP-Protocol-Version header', {}, { 'mcp-protocol-version': null }, /MCP-Protocol-Version/],
    [
      'an envelope without client capabilities',
      { 'io.modelcontextprotocol/clientCapabilities': undefined },
      {},
      /clientCapabilities/,
    ],
    ['a progress token the schema refuses', { progressToken: 1.5 }, {}, /not a valid JSON-RPC message/],
  ])('%s: refused by the SDK, as before', async (_, meta, headers, message) => {
    served.clear();
    const _meta = JSON.parse(JSON.stringify(envelope(meta))) as Record<string, unknown>;
    const answer = await post(701, { name: 'basic__echo', arguments: { message: 'x' }, _meta }, headers);
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(message);
    expect(served.sdkServed).toEqual([]);
  });
});
