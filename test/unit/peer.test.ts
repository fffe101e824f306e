// One side of a JSON-RPC connection (src/relay/peer.ts) over an in-memory pair of wires: the ids of the requests it
// sends and the answers that come back for them, progress tokens, cancellation, timeouts, the end of the connection,
// and everything else the other side sends reaching the handlers as the frame it came as.
// cspell:ignore onframe
import { afterEach, describe, expect, test } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { Cancellation } from '../../src/rpc/cancellation.js';
import { CancelledError, ConnectionClosedError, TimeoutError } from '../../src/rpc/errors.js';
import { Peer, type PeerHandlers } from '../../src/rpc/peer.js';
import { Frame } from '../../src/wire/frame.js';
import type { FrameContext, SendOptions, Wire } from '../../src/wire/wire.js';

/**
 * One end of an in-memory connection: what it is sent arrives at the other end later (in a task of its own), as a
 * frame read from the text the sender's frame writes, as a real wire would deliver it.
 */
class MemoryWire implements Wire {
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  other!: MemoryWire;
  /** The texts this end wrote, in order. */
  readonly written: string[] = [];
  /** The options each write came with. */
  readonly options: Array<SendOptions | undefined> = [];
  /** What the other end's frames arrive with. */
  context?: FrameContext;
  closed = false;
  /** Makes the next writes fail, as a broken pipe does. */
  failWrites = false;

  static pair(): [MemoryWire, MemoryWire] {
    const a = new MemoryWire();
    const b = new MemoryWire();
    a.other = b;
    b.other = a;
    return [a, b];
  }

  send(frame: Frame, options?: SendOptions): Promise<void> {
    if (this.closed || this.failWrites) return Promise.reject(new Error('the wire is closed'));
    const text = frame.encode();
    this.written.push(text);
    this.options.push(options);
    setImmediate(() => {
      if (!this.other.closed) this.other.onframe?.(Frame.read(text), this.other.context);
    });
    return Promise.resolve();
  }

  /** Ends both sides, as a process exit or a closed socket does: each side hears it once. */
  close(): Promise<void> {
    for (const end of [this, this.other]) {
      if (end.closed) continue;
      end.closed = true;
      setImmediate(() => end.onclose?.());
    }
    return Promise.resolve();
  }

  /** The messages this end wrote, parsed. */
  messages(): Array<Record<string, unknown>> {
    return this.written.map((text) => JSON.parse(text) as Record<string, unknown>);
  }
}

/** Handlers that record what reaches them. */
function recorder() {
  const requests: Array<{ frame: Frame; context?: FrameContext }> = [];
  const notifications: Array<{ frame: Frame; context?: FrameContext }> = [];
  let closed = 0;
  const handlers: PeerHandlers = {
    request: (frame, context) => void requests.push({ frame, context }),
    notification: (frame, context) => void notifications.push({ frame, context }),
    closed: () => void closed++,
  };
  return { handlers, requests, notifications, closed: () => closed };
}

/** Two peers on one connection: `client` sends, `server` answers. */
function connection() {
  const [clientWire, serverWire] = MemoryWire.pair();
  const clientSide = recorder();
  const serverSide = recorder();
  const client = new Peer(clientWire, clientSide.handlers, 'c');
  const server = new Peer(serverWire, serverSide.handlers, 's');
  return { client, server, clientWire, serverWire, clientSide, serverSide };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A Cancellation that counts its listeners. */
class Listened extends Cancellation {
  listening = 0;
  override listen(listener: () => void): () => void {
    this.listening++;
    const stop = super.listen(listener);
    return () => {
      this.listening--;
      stop();
    };
  }
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check` answers something, polling between wire deliveries. */
async function until<T>(check: () => T | undefined, what: string, ms = 2000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = check();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** Whether a promise is still pending after the wires have delivered what they hold. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await tick();
  await tick();
  return !settled;
}

const open: Peer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((peer) => peer.close()));
});

function opened() {
  const c = connection();
  open.push(c.client, c.server);
  return c;
}

describe('requests and their answers', () => {
  test("ids are the peer's own numbers, whatever id the frame had; each answer goes to its own request", async () => {
    const { client, server, clientWire, serverSide } = opened();
    const first = client.request(Frame.read('{"jsonrpc":"2.0","id":"from-client-7","method":"a","params":{"n":1.0}}'));
    const second = client.request(Frame.request(0, 'b'));
    const [a, b] = await until(() => (serverSide.requests.length === 2 ? serverSide.requests : undefined), 'both');
    expect([a!.frame.id, b!.frame.id]).toEqual([1, 2]);
    // Only the id was changed: the rest of the request is the text it came as.
    expect(clientWire.written[0]).toBe('{"jsonrpc":"2.0","id":1,"method":"a","params":{"n":1.0}}');
    // Answered in the other order.
    await server.answer(b!.frame.id!, Frame.result(0, { for: 'b' }));
    await server.answer(a!.frame.id!, Frame.result(0, { for: 'a' }));
    expect((await first).message.result).toEqual({ for: 'a' });
    expect((await second).message.result).toEqual({ for: 'b' });
    expect((await first).id).toBe(1);
  });

  test('an error answer resolves the request too: what to make of it is the caller’s business', async () => {
    const { client, server, serverSide } = opened();
    const asked = client.request(Frame.request(0, 'x'));
    const [request] = await until(() => (serverSide.requests.length ? serverSide.requests : undefined), 'request');
    await server.answer(request!.frame.id!, Frame.error(null, { code: -32601, message: 'Method not found' }));
    const answer = await asked;
    expect(answer.isError).toBe(true);
    expect(answer.message.error).toEqual({ code: -32601, message: 'Method not found' });
  });

  test('an answer to an id nobody waits for is dropped quietly; the request it is not for stays pending', async () => {
    const { client, server, serverWire, clientSide, serverSide } = opened();
    const asked = client.request(Frame.request(0, 'x'));
    const [request] = await until(() => (serverSide.requests.length ? serverSide.requests : undefined), 'request');
    await serverWire.send(Frame.result(99, { stray: true }));
    await serverWire.send(Frame.error(null, { code: -32700, message: 'Parse error' }));
    expect(await pending(asked)).toBe(true);
    expect(clientSide.requests).toEqual([]);
    expect(clientSide.notifications).toEqual([]);
    await server.answer(request!.frame.id!, Frame.result(0, { ok: true }));
    expect((await asked).message.result).toEqual({ ok: true });
  });

  test('1 and "1" are different ids; a number a double cannot hold is its own id', async () => {
    const { client, serverWire, serverSide } = opened();
    const byString = client.request(Frame.request(0, 'x'), { id: '1' });
    const byNumber = client.request(Frame.request(0, 'y'));
    const exactId = JSON.rawJSON('12345678901234567890123');
    const byExact = client.request(Frame.request(0, 'z'), { id: exactId });
    await until(() => (serverSide.requests.length === 3 ? true : undefined), 'three requests');
    expect(serverSide.requests.map((r) => r.frame.id)).toEqual(['1', 1, exactId]);
    // The exact id went out as written, not as the double nearest to it.
    expect(serverWire.other.written[2]).toContain('"id":12345678901234567890123');
    await serverWire.send(Frame.read('{"jsonrpc":"2.0","id":1,"result":{"to":"number"}}'));
    expect(await pending(byString)).toBe(true);
    expect((await byNumber).message.result).toEqual({ to: 'number' });
    // The double nearest to the exact id is another id.
    await serverWire.send(Frame.read('{"jsonrpc":"2.0","id":12345678901234567000000,"result":{}}'));
    expect(await pending(byExact)).toBe(true);
    await serverWire.send(Frame.read('{"jsonrpc":"2.0","id":12345678901234567890123,"result":{"to":"exact"}}'));
    expect((await byExact).message.result).toEqual({ to: 'exact' });
    await serverWire.send(Frame.read('{"jsonrpc":"2.0","id":"1","result":{"to":"string"}}'));
    expect((await byString).message.result).toEqual({ to: 'string' });
  });

  test('answer() writes the answer under the id it is given; one that has it already goes as it came', async () => {
    const { client, server, serverWire, serverSide } = opened();
    const asked = client.request(Frame.request(0, 'x'));
    const [request] = await until(() => (serverSide.requests.length ? serverSide.requests : undefined), 'request');
    await server.answer(request!.frame.id!, Frame.read('{"jsonrpc":"2.0", "id":"upstream-5", "result":{"n":1.0}}'));
    expect(serverWire.written[0]).toBe('{"jsonrpc":"2.0", "id":1, "result":{"n":1.0}}');
    expect((await asked).id).toBe(1);
    const again = Frame.read('{"jsonrpc":"2.0", "id":7, "result":{}}');
    await server.answer(7, again);
    expect(serverWire.written[1]).toBe('{"jsonrpc":"2.0", "id":7, "result":{}}');
  });

  test('send options go with the request to the wire', async () => {
    const { client, clientWire, serverSide } = opened();
    void client
      .request(Frame.request(0, 'x'), { send: { related: 4, headers: { 'Mcp-Param-Region': 'eu' } } })
      .catch(() => undefined);
    await until(() => (serverSide.requests.length ? true : undefined), 'request');
    expect(clientWire.options[0]).toEqual({ related: 4, headers: { 'Mcp-Param-Region': 'eu' } });
  });
});

describe('what the other side sends on its own', () => {
  test('requests and notifications reach the handlers as the frames they came as, with their context', async () => {
    const { client, serverWire, clientWire, clientSide } = opened();
    clientWire.context = { headers: { 'x-test': '1' }, origin: 'http://127.0.0.1:1' };
    await serverWire.send(
      Frame.read('{"jsonrpc":"2.0","id":"ask-1","method":"elicitation/create","params":{"n":1.0}}'),
    );
    await serverWire.send(Frame.notification('notifications/message', { level: 'info', data: 'hi' }));
    // Not JSON-RPC: nobody's business.
    await serverWire.send(Frame.read('{"jsonrpc":"2.0"}'));
    await until(() => (clientSide.notifications.length ? true : undefined), 'the notification');
    await tick();
    expect(clientSide.requests).toHaveLength(1);
    const [{ frame, context }] = clientSide.requests as [{ frame: Frame; context?: FrameContext }];
    expect(frame.id).toBe('ask-1');
    expect(frame.encode()).toBe('{"jsonrpc":"2.0","id":"ask-1","method":"elicitation/create","params":{"n":1.0}}');
    expect(context).toEqual({ headers: { 'x-test': '1' }, origin: 'http://127.0.0.1:1' });
    expect(clientSide.notifications.map((n) => n.frame.message)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } },
    ]);
    // Answering it goes under its own id.
    await client.answer('ask-1', Frame.result(0, { action: 'decline' }));
    expect(clientWire.written).toEqual(['{"jsonrpc":"2.0","id":"ask-1","result":{"action":"decline"}}']);
  });
});

describe('progress', () => {
  test("a request with onprogress carries a token of the peer's, and its progress goes there, not to the handlers", async () => {
    const { client, server, serverWire, clientSide, serverSide } = opened();
    const seen: Array<Record<string, unknown>> = [];
    const asked = client.request(Frame.request(0, 'tools/call', { name: 't', _meta: { traceparent: 'tp' } }), {
      onprogress: (params) => void seen.push(params),
    });
    const [request] = await until(() => (serverSide.requests.length ? serverSide.requests : undefined), 'request');
    const meta = request!.frame.params._meta as Record<string, unknown>;
    expect(meta).toEqual({ traceparent: 'tp', progressToken: 'c-1' });
    await serverWire.send(
      Frame.notification('notifications/progress', { progressToken: 'c-1', progress: 1, total: 2 }),
    );
    // Another token, or a number that only looks like it: the handlers' business.
    await serverWire.send(Frame.notification('notifications/progress', { progressToken: 'c-99', progress: 1 }));
    await until(() => (seen.length ? true : undefined), 'the progress');
    await until(() => (clientSide.notifications.length ? true : undefined), 'the stray progress');
    expect(seen).toEqual([{ progressToken: 'c-1', progress: 1, total: 2 }]);
    expect(clientSide.notifications.map((n) => n.frame.params.progressToken)).toEqual(['c-99']);
    await server.answer(request!.frame.id!, Frame.result(0, {}));
    await asked;
    // Once answered, its token is nobody's: progress for it goes to the handlers.
    await serverWire.send(Frame.notification('notifications/progress', { progressToken: 'c-1', progress: 2 }));
    await until(() => (clientSide.notifications.length === 2 ? true : undefined), 'late progress');
    expect(seen).toHaveLength(1);
    // Each request gets a token of its own; one without onprogress gets none.
    void client.request(Frame.request(0, 'x'), { onprogress: () => undefined }).catch(() => undefined);
    void client.request(Frame.request(0, 'y')).catch(() => undefined);
    await until(() => (serverSide.requests.length === 3 ? true : undefined), 'two more requests');
    expect(serverSide.requests[1]!.frame.params._meta).toEqual({ progressToken: 'c-2' });
    expect(serverSide.requests[2]!.frame.params._meta).toBeUndefined();
  });

  test('progress restarts the timeout: a request that reports progress outlives it', async () => {
    const { client, server, serverWire, serverSide } = opened();
    let reports = 0;
    const asked = client.request(Frame.request(0, 'slow'), { timeoutMs: 300, onprogress: () => void reports++ });
    const [request] = await until(() => (serverSide.requests.length ? serverSide.requests : undefined), 'request');
    const token = (request!.frame.params._meta as { progressToken: string }).progressToken;
    for (let n = 1; n <= 6; n++) {
      await sleep(120);
      await serverWire.send(Frame.notification('notifications/progress', { progressToken: token, progress: n }));
    }
    // 720 ms after it was sent, more than twice its timeout.
    await until(() => (reports === 6 ? true : undefined), 'six reports');
    await server.answer(request!.frame.id!, Frame.result(0, { done: true }));
    expect((await asked).message.result).toEqual({ done: true });
  });
});

describe('cancellation, timeouts, the end of the connection', () => {
  test.each([
    [
      'an aborted AbortSignal',
      () => {
        const controller = new AbortController();
        return { signal: controller.signal, abort: (why: string) => controller.abort(why) };
      },
    ],
    [
      "the relay's Cancellation, cancelled,",
      () => {
        const cancellation = new Cancellation();
        return { signal: cancellation, abort: (why: string) => cancellation.cancel(why) };
      },
    ],
  ])('%s rejects with CancelledError and tells the other side, with the id it knows', async (_what, make) => {
    const { client, serverWire, clientSide, serverSide } = opened();
    const { signal, abort } = make();
    const asked = client.request(Frame.request('caller-id', 'x'), { signal });
    const [request] = await until(() => (serverSide.requests.length ? serverSide.requests : undefined), 'request');
    abort('the user pressed stop');
    const error = await asked.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    expect((error as CancelledError).reason).toBe('the user pressed stop');
    const cancelled = await until(
      () => serverSide.notifications.find((n) => n.frame.method === 'notifications/cancelled'),
      'the cancellation',
    );
    expect(cancelled.frame.params).toEqual({ requestId: request!.frame.id, reason: 'the user pressed stop' });
    expect(request!.frame.id).toBe(1);
    // The answer that comes anyway is dropped.
    await serverWire.send(Frame.result(1, {}));
    await tick();
    await tick();
    expect(clientSide.requests).toEqual([]);
    expect(clientSide.notifications).toEqual([]);
  });

  test("an answered request no longer listens to the relay's Cancellation; cancelled after, nothing is sent", async () => {
    const { client, serverWire, serverSide } = opened();
    const later = new Listened();
    const answered = client.request(Frame.request(0, 'y'), { signal: later });
    await until(() => (serverSide.requests.length === 1 ? true : undefined), 'the request');
    expect(later.listening).toBe(1);
    await serverWire.send(Frame.result(1, { ok: true }));
    expect((await answered).message.result).toEqual({ ok: true });
    expect(later.listening).toBe(0);
    later.cancel('too late');
    await sleep(50);
    expect(serverSide.notifications).toEqual([]);
  });

  test('a signal aborted before the request rejects at once, and nothing is sent', async () => {
    const { client, clientWire } = opened();
    const abort = new AbortController();
    abort.abort(new Error('gone'));
    await expect(client.request(Frame.request(0, 'x'), { signal: abort.signal })).rejects.toBeInstanceOf(
      CancelledError,
    );
    expect(clientWire.written).toEqual([]);
  });

  test('a request not answered in time rejects with TimeoutError, and the other side is told', async () => {
    const { client, serverWire, clientSide, serverSide } = opened();
    const started = Date.now();
    const error = await client.request(Frame.request(0, 'x'), { timeoutMs: 60 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(60);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    const cancelled = await until(
      () => serverSide.notifications.find((n) => n.frame.method === 'notifications/cancelled'),
      'the cancellation',
    );
    expect(cancelled.frame.params).toEqual({ requestId: 1, reason: 'timed out after 60 ms' });
    // The late answer is dropped quietly.
    await serverWire.send(Frame.result(1, {}));
    await tick();
    await tick();
    expect(clientSide.notifications).toEqual([]);
  });

  test('an answered request lets its abort listener go at once; an abort or a timeout after it sends nothing', async () => {
    const { client, serverWire, serverSide } = opened();
    const abort = new AbortController();
    const asked = client.request(Frame.request(0, 'x'), { signal: abort.signal, timeoutMs: 60 });
    await until(() => (serverSide.requests.length ? true : undefined), 'request');
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(1);
    await serverWire.send(Frame.result(1, { ok: true }));
    expect((await asked).message.result).toEqual({ ok: true });
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
    abort.abort('too late');
    await sleep(100);
    expect(serverSide.notifications).toEqual([]);
  });

  test('pending requests fail with ConnectionClosedError when the wire closes; the handlers hear it once', async () => {
    const { client, serverWire, clientWire, clientSide, serverSide } = opened();
    const first = client.request(Frame.request(0, 'x'));
    const second = client.request(Frame.request(0, 'y'), { timeoutMs: 10_000 });
    await until(() => (serverSide.requests.length === 2 ? true : undefined), 'both requests');
    await serverWire.close();
    await expect(first).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(second).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(clientSide.closed()).toBe(1);
    expect(client.isClosed).toBe(true);
    // After the end: a request fails at once, a notification or an answer goes nowhere.
    await expect(client.request(Frame.request(0, 'z'))).rejects.toBeInstanceOf(ConnectionClosedError);
    await client.notify(Frame.notification('notifications/x'));
    await client.answer(3, Frame.result(0, {}));
    expect(clientWire.written).toHaveLength(2);
    await client.close();
    expect(clientSide.closed()).toBe(1);
  });

  test('a request the wire cannot write fails with ConnectionClosedError', async () => {
    const { client, clientWire } = opened();
    clientWire.failWrites = true;
    const error = await client.request(Frame.request(0, 'tools/list')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).message).toMatch(/could not send tools\/list/);
  });

  test('close() fails what is pending and closes the wire', async () => {
    const { client, clientWire, clientSide, serverSide } = opened();
    const asked = client.request(Frame.request(0, 'x'));
    await client.close();
    await expect(asked).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(clientWire.closed).toBe(true);
    expect(clientSide.closed()).toBe(1);
    await until(() => (serverSide.closed() === 1 ? true : undefined), 'the other side to hear it');
  });
});
