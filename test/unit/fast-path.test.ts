import { InMemoryTransport, SdkError, SdkErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { DirectRequests } from '../../src/fast-path/direct-requests.js';
import { isLeanRequest } from '../../src/fast-path/eligibility.js';
import { LeanDispatch, type LeanSession } from '../../src/fast-path/lean-dispatch.js';
import { DecoratedTransport } from '../../src/transports/decorated-transport.js';
import { carryWireError } from '../../src/transports/wire-errors.js';
import { isConnectionClosed, relayedError } from '../../src/upstreams/errors.js';

const call = (params: unknown, id: number | string = 1): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params }) as JSONRPCMessage;

describe('isLeanRequest: only what the SDK server would pass to the handler unchanged', () => {
  test('a legacy tools/call, with or without ordinary _meta', () => {
    expect(isLeanRequest(call({ name: 'echo', arguments: { message: 'hi' } }))).toBe(true);
    expect(isLeanRequest(call({ name: 'echo', _meta: { progressToken: 7, traceparent: '00-1-2-01' } }))).toBe(true);
  });

  test('not other methods, notifications, responses or params that are not an object', () => {
    expect(isLeanRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' } as JSONRPCMessage)).toBe(false);
    expect(isLeanRequest({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'x' } } as JSONRPCMessage)).toBe(
      false,
    );
    expect(isLeanRequest({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage)).toBe(false);
    expect(isLeanRequest(call(undefined))).toBe(false);
    expect(isLeanRequest(call([1]))).toBe(false);
    expect(isLeanRequest(call({ name: 'x', _meta: 'not an object' }))).toBe(false);
  });

  test('not a request carrying 2026-07-28 vocabulary, nor one the transport classified', () => {
    for (const key of ['protocolVersion', 'clientInfo', 'clientCapabilities', 'logLevel']) {
      expect(isLeanRequest(call({ name: 'x', _meta: { [`io.modelcontextprotocol/${key}`]: 'v' } }))).toBe(false);
    }
    expect(isLeanRequest(call({ name: 'x', inputResponses: {} }))).toBe(false);
    expect(isLeanRequest(call({ name: 'x', requestState: 'abc' }))).toBe(false);
    expect(isLeanRequest(call({ name: 'x' }), { classification: { era: 'legacy' } } as never)).toBe(false);
  });
});

/** A DirectRequests on one end of a linked pair; the other end plays the upstream. */
async function upstreamPair(envelope?: () => Record<string, unknown>) {
  const [near, far] = InMemoryTransport.createLinkedPair();
  const requests = new DirectRequests(near, () => undefined, false, envelope);
  const passedOn: JSONRPCMessage[] = [];
  near.onmessage = (message) => {
    const rest = requests.take(carryWireError(message));
    if (rest) passedOn.push(rest);
  };
  const received: JSONRPCMessage[] = [];
  far.onmessage = (message) => void received.push(message);
  await near.start();
  await far.start();
  const next = async (): Promise<JSONRPCMessage & { id?: string; params?: Record<string, unknown> }> => {
    while (received.length === 0) await new Promise((resolve) => setImmediate(resolve));
    return received.shift() as never;
  };
  return { requests, far, next, passedOn, near };
}

describe('DirectRequests: what the SDK client does for a relayed request, without its schemas', () => {
  test('sends the request with an id of its own and resolves with the result exactly as sent', async () => {
    const { requests, far, next, passedOn } = await upstreamPair();
    const pending = requests.request(
      'tools/call',
      { name: 'echo', _meta: { progressToken: 't1' } },
      {
        signal: new AbortController().signal,
      },
    );
    const sent = await next();
    expect(sent).toEqual({
      jsonrpc: '2.0',
      id: expect.stringMatching(/^mcp-offload-/),
      method: 'tools/call',
      params: { name: 'echo', _meta: { progressToken: 't1' } },
    });
    const result = { resultType: 'complete', content: [{ type: 'text', text: 'hi' }], extra: { kept: true } };
    await far.send({ jsonrpc: '2.0', id: sent.id!, result });
    await expect(pending).resolves.toEqual(result);
    // Answers to other ids (the SDK client's own requests) pass on.
    await far.send({ jsonrpc: '2.0', id: 0, result: {} });
    expect(passedOn).toEqual([{ jsonrpc: '2.0', id: 0, result: {} }]);
  });

  test('an error answer is relayed with its code, message and data as they were on the wire', async () => {
    const { requests, far, next } = await upstreamPair();
    const pending = requests.request('tools/call', { name: 'x' }, { signal: new AbortController().signal });
    const sent = await next();
    const error = { code: -32002, message: 'Resource not found', data: { uri: 'x://y', more: [1, 2] } };
    await far.send({ jsonrpc: '2.0', id: sent.id!, error });
    const thrown = await pending.catch((e: unknown) => e);
    expect(relayedError(thrown)).toMatchObject(error);
  });

  test('an abort tells the upstream (notifications/cancelled) and rejects as the SDK does', async () => {
    const { requests, next } = await upstreamPair();
    const abort = new AbortController();
    const pending = requests.request('tools/call', { name: 'slow' }, { signal: abort.signal });
    const sent = await next();
    abort.abort('cancelled by the client');
    const thrown = await pending.catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(SdkError);
    expect((thrown as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
    expect(await next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: sent.id, reason: 'cancelled by the client' },
    });
  });

  test('a timeout given with the request cancels it upstream and rejects with the SDK timeout error', async () => {
    const { requests, next } = await upstreamPair();
    const pending = requests.request(
      'tools/call',
      { name: 'slow' },
      { signal: new AbortController().signal, timeout: 5 },
    );
    const sent = await next();
    const thrown = await pending.catch((e: unknown) => e);
    expect((thrown as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
    const cancel = await next();
    expect(cancel).toMatchObject({ method: 'notifications/cancelled', params: { requestId: sent.id } });
  });

  test('a closed connection fails what is pending, and what is asked after, with the connection-closed error', async () => {
    const { requests, next } = await upstreamPair();
    const pending = requests.request('tools/call', { name: 'slow' }, { signal: new AbortController().signal });
    await next();
    requests.close();
    expect(isConnectionClosed(await pending.catch((e: unknown) => e))).toBe(true);
    const later = requests.request('tools/call', {}, { signal: new AbortController().signal });
    expect(isConnectionClosed(await later.catch((e: unknown) => e))).toBe(true);
  });

  test('takes only requests sent with an abort signal and options it honors', async () => {
    const { requests } = await upstreamPair();
    const signal = new AbortController().signal;
    expect(requests.honors('tools/call', { signal, timeout: 2 ** 31 - 1 })).toBe(true);
    expect(requests.honors('tools/call', { signal, allowInputRequired: true } as never)).toBe(true);
    expect(requests.honors('tools/call', undefined)).toBe(false);
    expect(requests.honors('tools/call', { timeout: 1000 })).toBe(false);
    expect(requests.honors('tools/call', { signal, onprogress: () => undefined })).toBe(false);
    expect(requests.honors('tools/call', { signal, relatedRequestId: 3 })).toBe(false);
  });
});

describe('DirectRequests in the 2026-07-28 era: the envelope the SDK client puts first in every _meta', () => {
  const envelope = () => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'proxy', version: '1' },
  });

  test('a request and its cancellation carry it before their own _meta keys; a request without params gets one', async () => {
    const { requests, next } = await upstreamPair(envelope);
    const controller = new AbortController();
    const pending = requests.request(
      'tools/call',
      {
        name: 'x',
        _meta: { progressToken: 4, 'io.modelcontextprotocol/clientInfo': { name: 'client', version: '2' } },
      },
      { signal: controller.signal },
    );
    const sent = await next();
    expect(sent.params).toEqual({
      name: 'x',
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'client', version: '2' },
        progressToken: 4,
      },
    });
    expect(Object.keys(sent.params!._meta as object)).toEqual([
      'io.modelcontextprotocol/protocolVersion',
      'io.modelcontextprotocol/clientInfo',
      'progressToken',
    ]);
    controller.abort('changed my mind');
    await pending.catch(() => undefined);
    const cancelled = await next();
    expect(cancelled).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: sent.id, reason: 'changed my mind', _meta: envelope() },
    });
    requests.request('tools/call', undefined, { signal: new AbortController().signal }).catch(() => undefined);
    expect((await next()).params).toEqual({ _meta: envelope() });
  });

  test('takes tools/call only', async () => {
    const { requests } = await upstreamPair(envelope);
    const signal = new AbortController().signal;
    expect(requests.honors('tools/call', { signal })).toBe(true);
    expect(requests.honors('resources/read', { signal })).toBe(false);
    expect(requests.honors('prompts/get', { signal })).toBe(false);
  });
});

describe('DecoratedTransport hooks the fast path relies on', () => {
  test('attached learns the decorated transport; closed runs before the SDK hears of the close', async () => {
    const [near, far] = InMemoryTransport.createLinkedPair();
    const order: string[] = [];
    let attached: unknown;
    const decorated = new DecoratedTransport(near, {
      attached: (transport) => (attached = transport),
      closed: () => void order.push('closed hook'),
    });
    decorated.onclose = () => void order.push('sdk onclose');
    expect(attached).toBe(decorated);
    await decorated.start();
    await far.start();
    await far.close();
    expect(order).toEqual(['closed hook', 'sdk onclose']);
  });
});

describe('LeanDispatch.beneathEntry: a legacy session takes its calls before the SDK stdio entry', () => {
  /** A session whose calls the lean dispatcher may take, answering each with the call's own name. */
  const session = (version: string | undefined): LeanSession => ({
    server: { getNegotiatedProtocolVersion: () => version } as unknown as LeanSession['server'],
    isClosed: false,
    era: 'legacy',
    view: {
      catalog: {
        tool: () => ({ upstream: { protocolVersion: '2025-11-25' } }),
        prompt: () => undefined,
        resourceOwner: () => undefined,
      },
    },
    relayCall: () => undefined,
    serveLean: (request) =>
      Promise.resolve({ content: [{ type: 'text', text: String((request.params as { name: string }).name) }] }),
  });

  async function wired(version: string | undefined) {
    const lean = new LeanDispatch(session(version));
    // The session's own transport, as RelayServer.connect decorates it.
    const [sessionSide] = InMemoryTransport.createLinkedPair();
    new DecoratedTransport(sessionSide, lean.hooks({}));
    const [wireSide, client] = InMemoryTransport.createLinkedPair();
    const seenByHooks: JSONRPCMessage[] = [];
    let current: LeanDispatch | undefined = lean;
    const wire = new DecoratedTransport(
      wireSide,
      LeanDispatch.beneathEntry({ inbound: (message) => (seenByHooks.push(message), message) }, () => current),
    );
    const toEntry: JSONRPCMessage[] = [];
    wire.onmessage = (message) => void toEntry.push(message);
    const toClient: JSONRPCMessage[] = [];
    client.onmessage = (message) => void toClient.push(message);
    await wire.start();
    await client.start();
    return { client, toEntry, toClient, seenByHooks, leave: () => (current = undefined) };
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

  test('a call is answered on the wire and never reaches the entry; other messages reach it, in order', async () => {
    const w = await wired('2025-11-25');
    await w.client.send(call({ name: 'echo', arguments: {} }, 'a'));
    await w.client.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    await settle();
    expect(w.toClient).toEqual([{ jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: 'echo' }] } }]);
    expect(w.toEntry).toEqual([{ jsonrpc: '2.0', id: 'p', method: 'ping' }]);
    expect(w.seenByHooks).toEqual(w.toEntry);
  });

  test('before a legacy version is negotiated, or with no current session, everything goes to the entry', async () => {
    const early = await wired(undefined);
    await early.client.send(call({ name: 'echo' }, 1));
    await settle();
    expect(early.toEntry).toHaveLength(1);
    expect(early.toClient).toEqual([]);
    const left = await wired('2025-11-25');
    left.leave();
    await left.client.send(call({ name: 'echo' }, 2));
    await settle();
    expect(left.toEntry).toHaveLength(1);
    expect(left.toClient).toEqual([]);
  });
});
