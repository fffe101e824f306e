// Two replicas of the HTTP gateway (dist/cli.js --http) sharing state through a real redis-server: a legacy session
// opened on one is served through the other (calls, the GET stream, DELETE), resumes there with Last-Event-ID,
// survives its replica being killed, list changes reach the other replica's listen streams once, a link signed by
// one opens on the other, and a replica that cannot reach Redis at startup says so and exits.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from 'redis';
import { leftovers, runCli, startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { freePort } from '../helpers/ports.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { handshake, rpc } from '../helpers/raw-session.js';
import { responseOf, SseReader, type SseEvent } from '../helpers/sse-reader.js';
import { bearer, connectHttp, downloadUrlOf, textsOf } from '../helpers/sidecar.js';

const ROUND_ROBIN = fileURLToPath(new URL('../fixtures/round-robin-proxy.mjs', import.meta.url));

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';
const PROTOCOL = '2025-11-25';
const PREFIX = 'replicas-test:';

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-replicas-'));
let redis: RedisServer;
let config = '';

interface Replica {
  cli: CliProcess;
  base: string;
}

async function startReplica(name: string, port = 0): Promise<Replica> {
  // Each replica has its own artifact directory, as replicas on separate machines would.
  const listen = `127.0.0.1:${port}`;
  const cli = startCli(['--http', listen, '--config', config, '--artifact-dir', join(dir, `artifacts-${name}`)]);
  const [, base] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m);
  return { cli, base: base! };
}

let a: Replica;
let b: Replica;

beforeAll(async () => {
  redis = await startRedis();
  config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'servers:',
      `  art: {command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(FIXTURES.artifact)}]}`,
      `  dyn: {command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(FIXTURES.dynamic)}]}`,
      `  basic: {command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(FIXTURES.basic)}]}`,
      // Per-session owners across replicas are what some tests here check (the default scope is per principal).
      `auth: {tokens: [{name: alice, token: ${ALICE}}, {name: bob, token: ${BOB}}], artifactScope: session}`,
      'http: {retryMs: 200}',
      `redis: {url: "\${TEST_REDIS_URL}", keyPrefix: "${PREFIX}", heartbeatMs: 1000}`,
      '',
    ].join('\n'),
  );
  process.env.TEST_REDIS_URL = redis.url;
  [a, b] = await Promise.all([startReplica('a'), startReplica('b')]);
});

afterAll(async () => {
  await stopAllCli();
  for (const pid of orphans) killGroup(pid);
  await redis?.stop();
  expect(leftovers()).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

interface RawSession {
  id: string;
  /** POSTs a message to the session through `base`. */
  post(base: string, message: object, signal?: AbortSignal): Promise<Response>;
  /** Opens the session's GET stream through `base`, from `lastEventId` when given. */
  get(base: string, lastEventId?: string, signal?: AbortSignal): Promise<Response>;
  delete(base: string): Promise<Response>;
  /** Calls a tool through `base` and answers its result. */
  call(base: string, id: number, name: string, args: object): Promise<unknown>;
}

const headers = (token: string, sessionId?: string): Record<string, string> => ({
  ...bearer(token),
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL,
  ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
});

/** A 2025-11-25 session opened on `base`, every request by hand. */
async function openSession(base: string, token = ALICE): Promise<RawSession> {
  const { id } = await handshake(`${base}/mcp`, (sessionId) => headers(token, sessionId), 'replicas');
  const session: RawSession = {
    id,
    post: (to, message, signal) =>
      fetch(`${to}/mcp`, { method: 'POST', headers: headers(token, id), body: JSON.stringify(message), signal }),
    get: (to, lastEventId, signal) =>
      fetch(`${to}/mcp`, {
        method: 'GET',
        headers: {
          ...headers(token, id),
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal,
      }),
    delete: (to) => fetch(`${to}/mcp`, { method: 'DELETE', headers: headers(token, id) }),
    call: async (to, n, name, args) => {
      const response = await session.post(to, rpc(n, 'tools/call', { name, arguments: args }));
      expect(response.status).toBe(200);
      const answer = await responseOf(response, n);
      if (answer.error) throw new Error(`tools/call ${name} failed: ${JSON.stringify(answer.error)}`);
      return answer.result;
    },
  };
  return session;
}

/** The pids of `pid`'s children (its upstream fixtures), read from /proc. */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

/** Upstream processes of a killed replica: nobody stops them but the test (each leads its own process group). */
const orphans: number[] = [];
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

describe('two replicas sharing state through redis', () => {
  test('a session opened on A is served through B: calls, the GET stream, DELETE', async () => {
    const session = await openSession(a.base);
    expect(textsOf(await session.call(b.base, 2, 'art__echo', { message: 'via B' }))).toBe('via B');
    // B holds nothing: it forwards to A, whose answer is what the session would have got there.
    expect(b.cli.stderr()).not.toMatch(/adopting a session/);

    // The session's GET stream, opened through B, carries what A sends the session: a list change A's upstream saw.
    const stream = await session.get(b.base);
    expect(stream.status).toBe(200);
    const events = new SseReader(stream.body!);
    expect(textsOf(await session.call(a.base, 3, 'dyn__add-tool', { name: 'seen-through-b' }))).toBe(
      'added tool seen-through-b',
    );
    expect(await events.message((m) => m.method === 'notifications/tools/list_changed')).toBeDefined();
    await events.cancel();

    // Another token names no session, on either replica.
    const bobs = await fetch(`${b.base}/mcp`, {
      method: 'POST',
      headers: headers(BOB, session.id),
      body: JSON.stringify(rpc(4, 'tools/list')),
    });
    expect(bobs.status).toBe(404);

    // A client forging the mark replicas put on forwarded requests gains nothing: B still forwards to A, the holder,
    // rather than take the request for one meant for B and adopt the session.
    const holder = await withRedis((client) => client.hGet(`${PREFIX}session:${session.id}`, 'replica'));
    expect(holder).toBeTruthy();
    const forged = await fetch(`${b.base}/mcp`, {
      method: 'POST',
      headers: { ...headers(ALICE, session.id), 'x-mcp-offload-forwarded-for': `${holder} forged-mac` },
      body: JSON.stringify(rpc(6, 'tools/call', { name: 'art__echo', arguments: { message: 'forged' } })),
    });
    expect(textsOf((await responseOf(forged, 6)).result)).toBe('forged');
    expect(b.cli.stderr()).not.toMatch(/adopting a session/);

    expect((await session.delete(b.base)).status).toBe(200);
    for (const base of [a.base, b.base]) {
      const gone = await session.post(base, rpc(5, 'tools/list'));
      expect(gone.status).toBe(404);
      expect(await gone.json()).toMatchObject({ error: { message: 'Session not found' } });
    }
  });

  test('a client resumes with Last-Event-ID on the other replica', async () => {
    const session = await openSession(a.base);
    const connection = new AbortController();
    const call = await session.post(
      a.base,
      rpc(2, 'tools/call', { name: 'art__held-image', arguments: { tag: 'resumed-on-b' } }),
      connection.signal,
    );
    const priming = (await new SseReader(call.body!).next()) as SseEvent;
    expect(priming.id).toBeTruthy();
    connection.abort();
    // Released through B: forwarded to A, whose upstream holds the call.
    expect(textsOf(await session.call(b.base, 3, 'art__release', { tag: 'resumed-on-b' }))).toBe(
      'released resumed-on-b',
    );
    const resumed = await session.get(b.base, priming.id);
    expect(resumed.status).toBe(200);
    const answer = await new SseReader(resumed.body!).response(2);
    expect(textsOf(answer.result)).toMatch(/^image resumed-on-b/);
    expect(downloadUrlOf(answer.result)).toContain('/artifacts/art/');
    await session.delete(a.base);
  });

  test('a stateless 2026-07-28 client is served by either replica, and hears list changes seen by the other once', async () => {
    const listen = async (base: string) => {
      const client = new Client(
        { name: 'modern', version: '1' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(ALICE) } }),
      );
      const heard = { tools: 0, prompts: 0 };
      client.setNotificationHandler('notifications/tools/list_changed', () => void heard.tools++);
      client.setNotificationHandler('notifications/prompts/list_changed', () => void heard.prompts++);
      const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
      return { client, heard, subscription };
    };
    const onB = await listen(b.base);
    const onA = await listen(a.base);
    try {
      // Any replica serves a modern request: it needs no session.
      expect((await onB.client.listTools()).tools.map((t) => t.name)).toContain('art__echo');
      // A legacy session on B, served by B's own connection of the server that changed on A, hears of it too.
      const legacyOnB = await openSession(b.base);
      const legacyStream = await legacyOnB.get(b.base);
      expect(legacyStream.status).toBe(200);
      const legacyHeard = new SseReader(legacyStream.body!).message(
        (m) => m.method === 'notifications/tools/list_changed',
      );
      const caller = await openSession(a.base);
      await caller.call(a.base, 2, 'dyn__add-tool', { name: 'fanned-out-1' });
      await caller.call(a.base, 3, 'dyn__add-tool', { name: 'fanned-out-2' });
      // Then a change of another kind on B, published after A's (B saw them first): each replica's subscription
      // delivers in the channel's order, so once both have heard it, a duplicate of A's changes (an echo of A's own
      // message on A, a second copy on B) would have been heard before it.
      await waitFor(() => onB.heard.tools === 2 && onA.heard.tools === 2, 10_000, 20, 'the two tool changes on both');
      const onBCaller = await openSession(b.base);
      await onBCaller.call(b.base, 2, 'dyn__add-prompt', { name: 'barrier' });
      await waitFor(() => onB.heard.prompts > 0 && onA.heard.prompts > 0, 10_000, 20, 'the prompt change on both');
      expect(onB.heard).toEqual({ tools: 2, prompts: 1 });
      expect(onA.heard).toEqual({ tools: 2, prompts: 1 });
      await onBCaller.delete(b.base);
      expect(await legacyHeard).toMatchObject({ method: 'notifications/tools/list_changed' });
      await legacyOnB.delete(b.base);
      await caller.delete(a.base);
    } finally {
      for (const { client, subscription } of [onA, onB]) {
        await subscription.close();
        await client.close();
      }
    }
  });

  test('a legacy SSE session opened on A takes its messages through B; its answers come on its stream on A', async () => {
    const connection = new AbortController();
    const stream = await fetch(`${a.base}/sse`, { headers: bearer(ALICE), signal: connection.signal });
    expect(stream.status).toBe(200);
    const events = new SseReader(stream.body!);
    const endpoint = (await events.next())!.data;
    expect(endpoint).toMatch(/^\/messages\?sessionId=/);
    const post = (message: object, token = ALICE) => postSse(b.base, endpoint, message, token);
    expect((await post(rpc(1, 'initialize', SSE_INIT))).status).toBe(202);
    expect((await events.response(1)).result).toMatchObject({ protocolVersion: '2024-11-05' });
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect((await post(rpc(2, 'tools/call', { name: 'art__echo', arguments: { message: 'sse via B' } }))).status).toBe(
      202,
    );
    expect(textsOf((await events.response(2)).result)).toBe('sse via B');
    expect((await post(rpc(3, 'tools/list'), BOB)).status).toBe(404);
    connection.abort();
    // The stream closed: the session is gone for every replica.
    await waitFor(async () => (await post(rpc(4, 'tools/list'))).status === 404, 10_000, 20, 'the session to end');
  });

  test('a legacy SSE session names its endpoint only once every replica can find it', async () => {
    // Redis holds writes back for a second (reads go on): A's record of the new session waits, B's lookups do not.
    await withRedis((client) => client.sendCommand(['CLIENT', 'PAUSE', '1000', 'WRITE']));
    const connection = new AbortController();
    try {
      const stream = await fetch(`${a.base}/sse`, { headers: bearer(ALICE), signal: connection.signal });
      expect(stream.status).toBe(200);
      const endpoint = (await new SseReader(stream.body!).next())!.data;
      // Through B the moment the endpoint is known: had it come before the record, B would find no session (404).
      expect((await postSse(b.base, endpoint, rpc(1, 'initialize', SSE_INIT))).status).toBe(202);
    } finally {
      connection.abort();
      await withRedis((client) => client.sendCommand(['CLIENT', 'UNPAUSE']));
    }
  });

  test('a download link signed on A opens on B', async () => {
    const session = await openSession(a.base);
    const made = await session.call(a.base, 2, 'art__image', { tag: 'linked' });
    const link = downloadUrlOf(made);
    // The same bytes on B (content-addressed: the same id), so B has the artifact A's link names.
    const other = await openSession(b.base);
    const path = (url: string) => new URL(url).pathname;
    expect(path(downloadUrlOf(await other.call(b.base, 2, 'art__image', { tag: 'linked' })))).toBe(path(link));
    const onB = await fetch(link.replace(a.base, b.base));
    expect(onB.status).toBe(200);
    expect(onB.headers.get('content-type')).toBe('image/png');
    const forged = await fetch(link.replace(a.base, b.base).replace(/sig=[^&]+/, 'sig=AAAA'));
    expect(forged.status).toBe(403);
    // B's copy belongs to the session that made it there, not to A's session: ownership holds across replicas.
    const notOwned = await fetch(path(link).replace(/^/, b.base), { headers: headers(ALICE, session.id) });
    expect(notOwned.status).toBe(404);
    expect((await fetch(path(link).replace(/^/, b.base), { headers: headers(ALICE, other.id) })).status).toBe(200);
    await session.delete(a.base);
    await other.delete(b.base);
  });

  test('behind a round-robin proxy, the session of an SDK client is served by both replicas, requests spread over them', async () => {
    const proxy = spawn(NODE, [ROUND_ROBIN, '--port', '0', '--backends', `${a.base},${b.base}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const [, front] = await new Promise<RegExpExecArray>((resolve, reject) => {
        let err = '';
        proxy.stderr!.setEncoding('utf8').on('data', (s: string) => {
          err += s;
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(err);
          if (m) resolve(m);
        });
        proxy.once('exit', () => reject(new Error(`the proxy exited: ${err}`)));
      });
      const client = await connectHttp(front!, ALICE);
      let changed = 0;
      client.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
      try {
        for (let i = 0; i < 10; i++) {
          const result = await client.client.callTool({ name: 'art__echo', arguments: { message: `call ${i}` } });
          expect(textsOf(result)).toBe(`call ${i}`);
        }
        // The client's GET stream is on one replica or the other; the change comes from the session's holder.
        await client.client.callTool({ name: 'dyn__add-tool', arguments: { name: 'behind-the-proxy' } });
        await waitFor(() => changed > 0, 10_000, 20, 'tools/list_changed on the SDK client');
        expect((await client.client.listTools()).tools.map((t) => t.name)).toContain('dyn__behind-the-proxy');
        const { counts } = (await (await fetch(`${front}/__backends`)).json()) as { counts: number[] };
        expect(counts[0]).toBeGreaterThan(3);
        expect(counts[1]).toBeGreaterThan(3);
      } finally {
        await client.close();
      }
    } finally {
      proxy.kill('SIGTERM');
    }
  });

  test('a 2026-07-28 client answering a legacy server’s question on B goes on with the call A holds', async () => {
    // The call goes to A, the client's retry (it carries the requestState A sealed) to B.
    const routed: string[] = [];
    const split: typeof fetch = (input, init) => {
      const retry = typeof init?.body === 'string' && init.body.includes('"requestState"');
      routed.push(retry ? 'B' : 'A');
      return fetch(String(input).replace(a.base, retry ? b.base : a.base), init);
    };
    const client = new Client(
      { name: 'modern', version: '1' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'accept', content: { answer: 'forty-two' } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${a.base}/mcp`), {
        requestInit: { headers: bearer(ALICE) },
        fetch: split,
      }),
    );
    try {
      const answered = await client.callTool({ name: 'basic__elicit', arguments: { message: 'which replica?' } });
      expect(JSON.parse(textsOf(answered))).toMatchObject({ action: 'accept', content: { answer: 'forty-two' } });
      expect(asked).toBe(1);
      expect(routed).toContain('B');
    } finally {
      await client.close();
    }
  });

  test('A killed: its session goes on on B, which resumes its stream from redis', async () => {
    const session = await openSession(a.base);
    const connection = new AbortController();
    const call = await session.post(
      a.base,
      rpc(2, 'tools/call', { name: 'art__held-image', arguments: { tag: 'before-the-kill' } }),
      connection.signal,
    );
    const priming = (await new SseReader(call.body!).next()) as SseEvent;
    connection.abort();
    expect(textsOf(await session.call(a.base, 3, 'art__release', { tag: 'before-the-kill' }))).toBe(
      'released before-the-kill',
    );
    await waitFor(() => storedResult('image before-the-kill'), 10_000, 20, 'the held call’s result in redis');

    const before = downloadUrlOf(await session.call(a.base, 4, 'art__image', { tag: 'same-owner' }));

    orphans.push(...childrenOf(a.cli.pid));
    a.cli.child.kill('SIGKILL');
    await a.cli.exit();

    // B adopts the session (A refuses connections) and resumes the stream A began, from what redis kept.
    const resumed = await session.get(b.base, priming.id);
    expect(resumed.status).toBe(200);
    expect(textsOf((await new SseReader(resumed.body!).response(2)).result)).toMatch(/^image before-the-kill/);
    expect(b.cli.stderr()).toMatch(/adopting a session whose replica is gone/);
    // And serves the session from now on: calls, its lists.
    expect(textsOf(await session.call(b.base, 5, 'art__echo', { message: 'after the kill' }))).toBe('after the kill');
    // Under the same owner as on A: the same bytes stored on B are the session's, with the owner A stored them under.
    const after = downloadUrlOf(await session.call(b.base, 6, 'art__image', { tag: 'same-owner' }));
    const id = new URL(after).pathname.replace('/artifacts/', '');
    expect(new URL(before).pathname).toBe(new URL(after).pathname);
    expect(ownersIn('a', id)).toEqual(ownersIn('b', id));
    expect(ownersIn('a', id)[0]).toMatch(/^session:/);
    const path = new URL(after).pathname;
    expect((await fetch(`${b.base}${path}`, { headers: headers(ALICE, session.id) })).status).toBe(200);
    expect((await fetch(`${b.base}${path}`, { headers: headers(BOB, session.id) })).status).toBe(404);
    const list = await session.post(b.base, rpc(7, 'tools/list'));
    expect(((await new SseReader(list.body!).response(7)).result as { tools: unknown[] }).tools.length).toBeGreaterThan(
      0,
    );
    expect((await session.delete(b.base)).status).toBe(200);
  });

  test('a replica shut down (SIGTERM) lets its sessions go: the next replica a request lands on adopts them', async () => {
    const c = await startReplica('c');
    const session = await openSession(c.base);
    expect(textsOf(await session.call(c.base, 2, 'art__echo', { message: 'on C' }))).toBe('on C');
    await c.cli.stop();
    expect(textsOf(await session.call(b.base, 3, 'art__echo', { message: 'C is gone' }))).toBe('C is gone');
    expect(b.cli.stderr()).toMatch(/"from":"\(released\)".*adopting a session whose replica is gone/);
    expect((await session.delete(b.base)).status).toBe(200);
  });

  test('a replica killed and started again at the same address: its old sessions go on, wherever requests land', async () => {
    const port = await freePort();
    const first = await startReplica('d', port);
    const session = await openSession(first.base);
    orphans.push(...childrenOf(first.cli.pid));
    first.cli.child.kill('SIGKILL');
    await first.cli.exit();
    // A new process, another replica, at the address the session's record names.
    const again = await startReplica('d', port);
    try {
      // Through B: forwarded to the address (if the old heartbeat still shows) where the new process adopts it, or
      // adopted by B; either way the session goes on, and once only.
      expect(textsOf(await session.call(b.base, 2, 'art__echo', { message: 'once' }))).toBe('once');
      expect(textsOf(await session.call(again.base, 3, 'art__echo', { message: 'twice' }))).toBe('twice');
      const adoptions = [b.cli.stderr(), again.cli.stderr()]
        .join('\n')
        .split('\n')
        .filter((line) => line.includes(session.id) && line.includes('adopting a session')).length;
      expect(adoptions).toBe(1);
      expect((await session.delete(b.base)).status).toBe(200);
    } finally {
      await again.cli.stop();
    }
  });

  test('redis gone mid-run: B keeps serving what it can, and says so in its log', async () => {
    const session = await openSession(b.base);
    await redis.stop();
    // Its own session goes on (its events are sent, not kept), as do stateless requests; nothing is lost.
    expect(textsOf(await session.call(b.base, 2, 'art__echo', { message: 'without redis' }))).toBe('without redis');
    const fresh = await openSession(b.base);
    expect(textsOf(await fresh.call(b.base, 2, 'art__echo', { message: 'new session' }))).toBe('new session');
    // A session B does not hold cannot be found without redis: 503 (try again), not 'Session not found'.
    const unknown = await fetch(`${b.base}/mcp`, {
      method: 'POST',
      headers: headers(ALICE, '00000000-0000-4000-8000-000000000000'),
      body: JSON.stringify(rpc(3, 'tools/list')),
    });
    expect(unknown.status).toBe(503);
    expect(b.cli.stderr()).toMatch(/a message was sent but not kept/);
    expect(b.cli.stderr()).toMatch(/redis: session not shared; only this replica can serve it/);
    expect((await session.delete(b.base)).status).toBe(200);
  });

  test('a replica that cannot reach redis at startup says which URL and exits 1', async () => {
    const port = await freePort();
    const broken = join(dir, 'broken.yaml');
    writeFileSync(
      broken,
      readFileSync(config, 'utf8').replace('${TEST_REDIS_URL}', `redis://:secret-password@127.0.0.1:${port}/0`),
    );
    const run = await runCli(['--http', '127.0.0.1:0', '--config', broken]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`mcp-offload: cannot reach Redis at redis://:***@127.0.0.1:${port}/0: `);
    expect(run.stderr).toMatch(/ECONNREFUSED/);
    expect(run.stderr).not.toContain('secret-password');
    expect(run.stderr).not.toMatch(/listening on/);
    // Checked before anything starts: no store opened, no upstream started.
    expect(run.stderr).not.toMatch(/artifact store ready|upstream/);
    // A URL the client cannot even read is the same clear error, password masked all the same.
    writeFileSync(broken, readFileSync(config, 'utf8').replace('${TEST_REDIS_URL}', 'redis://:hunter2@127.0.0.1:port'));
    const unreadable = await runCli(['--http', '127.0.0.1:0', '--config', broken]);
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toContain('mcp-offload: cannot reach Redis at redis://:***@127.0.0.1:port: ');
    expect(unreadable.stderr).not.toContain('hunter2');
  });
});

/** The owners of artifact `id` in a replica's store, from its metadata records on disk. */
function ownersIn(replica: string, id: string): string[] {
  const meta = join(dir, `artifacts-${replica}`, '.meta');
  for (const file of readdirSync(meta, { recursive: true }) as string[]) {
    if (!file.endsWith('.json')) continue;
    const record = JSON.parse(readFileSync(join(meta, file), 'utf8')) as { id?: string; owners?: string[] };
    if (record.id === id) return record.owners ?? [];
  }
  throw new Error(`no record of ${id} in replica ${replica}'s store`);
}

/** A legacy SSE client's `initialize` params. */
const SSE_INIT = { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'sse', version: '1' } };

/** POSTs a message to a legacy SSE session's endpoint (the stream's first event) through the replica at `base`. */
function postSse(base: string, endpoint: string, message: object, token = ALICE): Promise<Response> {
  return fetch(`${base}${endpoint}`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify(message),
  });
}

const redisClient = (url: string) => createClient({ url });

/** Runs `work` with a client of the test's redis-server. */
async function withRedis<T>(work: (client: ReturnType<typeof redisClient>) => Promise<T>): Promise<T> {
  const client = redisClient(redis.url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** Whether redis holds a result whose text includes `text` in some stream (stored before the kill). */
function storedResult(text: string): Promise<boolean> {
  return withRedis(async (client) => {
    for (const key of await client.keys(`${PREFIX}events:*`)) {
      const entries = (await client.xRange(key, '-', '+')) ?? [];
      if (entries.some(({ message }) => String((message as Record<string, string>).m).includes(text))) return true;
    }
    return false;
  });
}
