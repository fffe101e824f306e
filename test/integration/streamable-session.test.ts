// A 2025 Streamable HTTP session (StreamableSession) over a real HTTP server and client, its messages answered by the
// test. What the session keeps per POST is let go once the POST is answered: its send queues (one per stream, so that
// an event's store id comes before the next event) were once never deleted, one settled promise per POST for the
// life of the session (the queues are private; the test reads them by name because nothing else shows them). And a
// stream resumed with Last-Event-ID replays what it was sent, however deeply nested.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULTS } from '../../src/config/types.js';
import { MemoryEventStore } from '../../src/http/memory-event-store.js';
import { StreamableSession } from '../../src/http/streamable-session.js';
import { silentLogger } from '../../src/logger.js';
import { Frame } from '../../src/wire/frame.js';

const DEEP = `${'{"a":['.repeat(20_000)}1${']}'.repeat(20_000)}`;

describe('StreamableSession over HTTP', () => {
  let server: Server;
  let url: string;
  let session: StreamableSession;

  beforeAll(async () => {
    session = new StreamableSession('s1', {
      events: new MemoryEventStore(),
      retryMs: 1000,
      streamAfterMs: DEFAULTS.httpOptions.streamAfterMs,
      log: silentLogger,
    });
    session.protocolVersion = '2025-11-25';
    // Every request is answered at once with its method; prompts/list with a value 40 000 levels deep.
    session.onframe = (frame) => {
      if (frame.kind !== 'request') return;
      const deep = frame.method === 'prompts/list' ? { deep: JSON.parse(DEEP) as unknown } : {};
      void session.send(Frame.result(frame.id as string | number, { echo: frame.method ?? '', ...deep }));
    };
    server = createServer((req, res) => {
      if (req.method === 'GET') return void session.get(req, res);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const frame = Frame.read(Buffer.concat(chunks).toString('utf8'));
        session.post(res, [frame], { headers: req.headers });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await session.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = async (id: number, method: string): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: {} }),
    });

  test('twenty answered POSTs, streamed and JSON, leave no send queue and no stream behind', async () => {
    for (let id = 1; id <= 10; id++) {
      // A list goes out as a stream: its priming event, then its answer, both stored, through the stream's queue.
      const listed = await post(id, 'tools/list');
      expect(listed.headers.get('content-type')).toBe('text/event-stream');
      const events = await listed.text();
      expect(events).toMatch(/^id: .*\nretry: 1000\ndata: \n\n/);
      expect(events).toContain(`"id":${id},"result":{"echo":"tools/list"}`);
      // A call answered before anything else goes out as one JSON body.
      const called = await post(100 + id, 'tools/call');
      expect(called.headers.get('content-type')).toBe('application/json');
      expect(await called.json()).toEqual({ jsonrpc: '2.0', id: 100 + id, result: { echo: 'tools/call' } });
    }
    // A queue is let go a promise turn after its last task.
    await new Promise((resolve) => setImmediate(resolve));
    const kept = session as unknown as { queues: Map<string, unknown>; streams: Map<string, unknown> };
    expect(kept.queues.size).toBe(0);
    expect(kept.streams.size).toBe(0);
    expect(session.busy).toBe(false);
  });

  test('a stream resumed with Last-Event-ID replays an answer 40 000 levels deep as it was sent', async () => {
    const listed = await post(500, 'prompts/list');
    const events = await listed.text();
    const priming = /^id: (\S+)\n/.exec(events)![1]!;
    const live = `{"jsonrpc":"2.0","id":500,"result":{"echo":"prompts/list","deep":${DEEP}}}`;
    expect(events).toContain(`data: ${live}\n\n`);
    const resumed = await fetch(url, {
      headers: { accept: 'text/event-stream', 'last-event-id': priming, 'mcp-session-id': 's1' },
    });
    expect(resumed.status).toBe(200);
    const reader = resumed.body!.getReader();
    let replayed = '';
    // Read until the answer is replayed, or the stream ends (as it did, empty, when the replay could not write it).
    while (!replayed.includes(`data: ${live}\n\n`)) {
      const { value, done } = await reader.read();
      if (done) break;
      replayed += Buffer.from(value).toString('utf8');
    }
    await reader.cancel();
    expect(replayed).toContain(`data: ${live}\n\n`);
  });
});
