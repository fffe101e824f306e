import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpHandle } from '../../src/http/server.js';
import { MemoryEventStore } from '../../src/http/memory-event-store.js';
import { silentLogger } from '../../src/logger.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { NO_OFFLOAD, testConfig } from '../helpers/proxy.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

const echo = (id: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { message } },
});

/**
 * A gateway over the basic fixture, served with an event store of its own, whose 2025 sessions answer a call on a
 * stream after `streamAfterMs`: `open` makes a 2025-11-25 session (handshake done) and resolves with its id.
 */
async function resumableProxy(streamAfterMs: number) {
  const config = testConfig([{ name: 'basic', command: NODE, args: [FIXTURES.basic] }], NO_OFFLOAD);
  const gateway = new Gateway({ ...config, httpOptions: { ...config.httpOptions, streamAfterMs } }, silentLogger);
  await gateway.start();
  const store = new MemoryEventStore();
  const http = await serveHttp(gateway, { host: '127.0.0.1', port: 0, eventStore: store }, silentLogger);
  const post = (body: unknown, session?: string) =>
    fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
      },
      body: JSON.stringify(body),
    });
  return {
    store,
    post,
    async open(): Promise<string> {
      const opened = await post({ ...initialize, params: { ...initialize.params, protocolVersion: '2025-11-25' } });
      await opened.text();
      const session = opened.headers.get('mcp-session-id')!;
      await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
      return session;
    },
    async close(): Promise<void> {
      await http.close();
      await gateway.stop();
    },
  };
}

describe('HTTP sessions', () => {
  let gateway: Gateway;
  let http: HttpHandle;
  beforeAll(async () => {
    gateway = new Gateway(
      testConfig([{ name: 'basic', command: NODE, args: [FIXTURES.basic] }], NO_OFFLOAD),
      silentLogger,
    );
    await gateway.start();
    http = await serveHttp(gateway, { host: '127.0.0.1', port: 0 }, silentLogger);
  });
  afterAll(async () => {
    await http.close();
    await gateway.stop();
  });

  test('an initialize the transport refuses leaves no session behind', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/plain' },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(406);
    }
    expect(gateway.sessionCount).toBe(0);
  });

  test('an accepted initialize makes one session, and DELETE ends it', async () => {
    const response = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    expect(response.status).toBe(200);
    await response.text();
    const id = response.headers.get('mcp-session-id');
    expect(id).toBeTruthy();
    expect(gateway.sessionCount).toBe(1);
    const closed = await fetch(http.url, { method: 'DELETE', headers: { 'mcp-session-id': id! } });
    expect(closed.status).toBe(200);
    expect(gateway.sessionCount).toBe(0);
  });

  test('an event store given to serveHttp keeps what a session was sent, and frees it when the session ends', async () => {
    const store = new MemoryEventStore();
    const resumable = await serveHttp(gateway, { host: '127.0.0.1', port: 0, eventStore: store }, silentLogger);
    try {
      const response = await fetch(resumable.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ ...initialize, params: { ...initialize.params, protocolVersion: '2025-11-25' } }),
      });
      const events = await response.text();
      // The priming event, then the initialize result, both with ids from the store.
      expect(events).toMatch(/^id: 1-1\nretry: 1000\ndata: \n\nevent: message\nid: 1-2\ndata: \{/);
      expect(store.eventCount).toBe(2);
      const id = response.headers.get('mcp-session-id')!;
      expect((await fetch(resumable.url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status).toBe(200);
      expect([store.eventCount, store.streamCount, store.bytes]).toEqual([0, 0, 0]);
    } finally {
      await resumable.close();
    }
  });

  test('a call answered as one JSON body stores nothing: no priming event for a stream that never opened', async () => {
    // A minute before a quiet call gets its stream: under a loaded CI run, an echo can take longer than the default
    // 50 ms, and then (rightly) answers on a stream, which is not what this test is about.
    const proxy = await resumableProxy(60_000);
    try {
      const session = await proxy.open();
      expect(proxy.store.eventCount).toBe(2);
      for (let id = 2; id < 12; id++) {
        const answer = await proxy.post(echo(id, `m${id}`), session);
        expect(answer.headers.get('content-type')).toBe('application/json');
        expect(await answer.json()).toMatchObject({ id, result: { content: [{ text: `m${id}` }] } });
      }
      // Only the handshake's priming event and answer: ten calls left no priming records behind.
      expect([proxy.store.eventCount, proxy.store.streamCount]).toEqual([2, 1]);
    } finally {
      await proxy.close();
    }
  });

  test('with http.streamAfterMs 0 every call answers on a resumable stream, its priming event first', async () => {
    const proxy = await resumableProxy(0);
    try {
      const answer = await proxy.post(echo(2, 'hi'), await proxy.open());
      expect(answer.headers.get('content-type')).toBe('text/event-stream');
      expect(await answer.text()).toMatch(/^id: \S+\nretry: 1000\ndata: \n\nevent: message\nid: \S+\ndata: \{.*"hi"/s);
      // The handshake's two events and the call's two.
      expect([proxy.store.eventCount, proxy.store.streamCount]).toEqual([4, 2]);
    } finally {
      await proxy.close();
    }
  });

  test('a body over the limit is refused with 413', async () => {
    const small = await serveHttp(gateway, { host: '127.0.0.1', port: 0, maxBodyBytes: 1000 }, silentLogger);
    try {
      const response = await fetch(small.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ ...initialize, params: { ...initialize.params, padding: 'x'.repeat(5000) } }),
      });
      expect(response.status).toBe(413);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /exceeds the limit of 1000 bytes/,
      );
    } finally {
      await small.close();
    }
  });
});
