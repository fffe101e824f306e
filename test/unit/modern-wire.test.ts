import { describe, expect, test } from '@jest/globals';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, JSONRPCRequest, Result } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { isModernLeanRequest } from '../../src/fast-path/eligibility.js';
import { encodeModernCallResult, encodeModernErrorCode, liftEnvelope } from '../../src/fast-path/modern-wire.js';

// The lean dispatcher's copies of the SDK's steps for a 2026-07-28 tools/call, held to the SDK's own codec: a server
// pinned to 2026-07-28 by the SDK's stdio entry lends its codec, and every result is encoded both ways.

const MODERN = '2026-07-28';
const INFO = { name: 'proxy', version: '1.2.3' };
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Codec {
  encodeResult(method: string, result: Result, serverInfo: unknown): Result;
  encodeErrorCode(code: number): number;
}

/** The 2026-07-28 codec of an SDK server the stdio entry has pinned to that revision. */
async function sdkCodec(): Promise<Codec> {
  let server: Server | undefined;
  const [wire, client] = InMemoryTransport.createLinkedPair();
  serveStdio(
    () => {
      server = new Server(INFO, { capabilities: { tools: {} } });
      server.fallbackRequestHandler = async () => ({ content: [] });
      return server;
    },
    { transport: wire },
  );
  const answered = new Promise<void>((resolve) => (client.onmessage = () => resolve()));
  await client.start();
  await client.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'x', _meta: envelope },
  } as JSONRPCMessage);
  await answered;
  const codec = (server as unknown as { _wireCodec(): Codec })._wireCodec();
  await client.close();
  return codec;
}

describe('modern-wire: the SDK steps for a 2026-07-28 tools/call', () => {
  test('a result is encoded as the SDK codec encodes it, key order included', async () => {
    const codec = await sdkCodec();
    const results: Result[] = [
      { content: [{ type: 'text', text: 'a' }] },
      { content: [], isError: true, structuredContent: { a: 1 } },
      { content: [], _meta: { traceparent: 't', 'io.modelcontextprotocol/related-task': { taskId: 'x' } } },
      { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'upstream', version: '9' } } },
      { content: [], _meta: 'not an object' as unknown as Record<string, unknown> },
      { content: [], resultType: 'complete' },
      { resultType: 'input_required', inputRequests: { a: { method: 'roots/list' } }, requestState: 's' },
      { content: [], capabilities: { tasks: {}, other: true } },
      { content: [], capabilities: { other: true } },
    ];
    for (const result of results) {
      const ours = encodeModernCallResult(result, INFO);
      const sdk = codec.encodeResult('tools/call', result, INFO);
      expect(JSON.stringify(ours)).toBe(JSON.stringify(sdk));
    }
    for (const code of [-32002, -32602, -32603, -32601, 1, -32000]) {
      expect(encodeModernErrorCode(code)).toBe(codec.encodeErrorCode(code));
    }
  });

  test('the envelope leaves _meta, other keys stay, and an empty _meta leaves the params', () => {
    const call = (meta: Record<string, unknown>) =>
      ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: {}, _meta: meta } }) as const;
    const lifted = liftEnvelope(call({ ...envelope, progressToken: 'p', traceparent: 't' }));
    expect(lifted.envelope).toEqual(envelope);
    expect(lifted.request.params).toEqual({
      name: 't',
      arguments: {},
      _meta: { progressToken: 'p', traceparent: 't' },
    });
    expect(liftEnvelope(call(envelope)).request.params).toEqual({ name: 't', arguments: {} });
  });

  test('what stays keeps its order and every key, __proto__ included, as a spread copy keeps them', () => {
    const text =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"x":1,' +
      '"io.modelcontextprotocol/protocolVersion":"2026-07-28","__proto__":{"a":1},' +
      '"io.modelcontextprotocol/clientCapabilities":{}},"name":"t","__proto__":[2],"arguments":{"k":"v"}}}';
    const lifted = liftEnvelope(JSON.parse(text) as JSONRPCRequest);
    expect(JSON.stringify(lifted.request)).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"x":1,"__proto__":{"a":1}},' +
        '"name":"t","__proto__":[2],"arguments":{"k":"v"}}}',
    );
    expect(Object.getPrototypeOf(lifted.request.params)).toBe(Object.prototype);
  });

  test('only a first-round tools/call that claims the era is taken', () => {
    const request = (params: unknown, extra: Record<string, unknown> = {}) =>
      ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params, ...extra }) as JSONRPCMessage;
    expect(isModernLeanRequest(request({ name: 't', _meta: envelope }))).toBe(true);
    expect(isModernLeanRequest(request({ name: 't' }))).toBe(false);
    expect(isModernLeanRequest(request({ name: 't', _meta: { traceparent: 'x' } }))).toBe(false);
    expect(isModernLeanRequest(request({ name: 't', _meta: envelope, requestState: 's' }))).toBe(false);
    expect(isModernLeanRequest(request({ name: 't', _meta: envelope, inputResponses: {} }))).toBe(false);
    expect(isModernLeanRequest(request([1]))).toBe(false);
    expect(isModernLeanRequest(request({ name: 't', _meta: envelope }, { id: null }))).toBe(false);
    expect(
      isModernLeanRequest({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: envelope },
      } as JSONRPCMessage),
    ).toBe(false);
  });
});
