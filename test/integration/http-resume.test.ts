// Resumable Streamable HTTP through the real proxy (dist/cli.js --http): a client whose SSE stream
// breaks mid-call reconnects with Last-Event-ID and gets its result, processed by the pipeline once;
// nobody resumes a stream of another session or another token.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliEnv, jsonLines, leftovers, REPO_ROOT, startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { FIXTURES, NODE, startListening } from '../helpers/fixtures.js';
import { bearer, linksOf, textsOf } from '../helpers/sidecar.js';
import { handshake, rpc } from '../helpers/raw-session.js';
import { responseOf, SseReader, type SseEvent } from '../helpers/sse-reader.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';
const PROTOCOL = '2025-11-25';
const RETRY_MS = 200;

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-http-resume-'));
const artifactDir = join(dir, 'artifacts');
let cli: CliProcess;
let base = '';

beforeAll(async () => {
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `servers: {art: {command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(FIXTURES.artifact)}]}}`,
      `auth: {tokens: [{name: alice, token: ${ALICE}}, {name: bob, token: ${BOB}}]}`,
      `http: {retryMs: ${RETRY_MS}}`,
      '',
    ].join('\n'),
  );
  cli = startCli(['--http', '127.0.0.1:0', '--config', config, '--artifact-dir', artifactDir]);
  const [, url] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m);
  base = url!;
});

afterAll(async () => {
  await stopAllCli();
  await Promise.all(stopFixtures.map((stop) => stop()));
  expect(leftovers()).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

/** A raw Streamable HTTP session, initialized at PROTOCOL: every request by hand. */
interface RawSession {
  id: string;
  post(message: object, signal?: AbortSignal): Promise<Response>;
  /** Opens GET /mcp with Last-Event-ID, as `token` for session `sessionId` (default: this one's). */
  resume(lastEventId: string, as?: { token?: string; sessionId?: string }): Promise<Response>;
  close(): Promise<void>;
}

async function openSession(token?: string, endpoint = `${base}/mcp`): Promise<RawSession> {
  const auth = (t = token): Record<string, string> => (t ? bearer(t) : {});
  const headers = (sessionId?: string): Record<string, string> => ({
    ...auth(),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  });
  const { id, initialize } = await handshake(endpoint, headers, 'resume-test');
  expect(initialize.result).toMatchObject({ protocolVersion: PROTOCOL });
  return {
    id,
    post: (message, signal) =>
      fetch(endpoint, { method: 'POST', headers: headers(id), body: JSON.stringify(message), signal }),
    resume: (lastEventId, as = {}) =>
      fetch(endpoint, {
        method: 'GET',
        headers: {
          ...auth(as.token ?? token),
          accept: 'text/event-stream',
          'mcp-protocol-version': PROTOCOL,
          'mcp-session-id': as.sessionId ?? id,
          'last-event-id': lastEventId,
        },
      }),
    close: async () => {
      await fetch(endpoint, { method: 'DELETE', headers: headers(id) });
    },
  };
}

/** Calls held-image and drops the connection after the priming event; resolves with that event. */
async function callAndDrop(session: RawSession, id: number, tag: string): Promise<SseEvent> {
  const connection = new AbortController();
  const response = await session.post(
    rpc(id, 'tools/call', { name: 'held-image', arguments: { tag } }),
    connection.signal,
  );
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const priming = await new SseReader(response.body!).next();
  connection.abort();
  return priming!;
}

async function release(session: RawSession, id: number, tag: string): Promise<void> {
  const response = await session.post(rpc(id, 'tools/call', { name: 'release', arguments: { tag } }));
  expect(textsOf((await responseOf(response, id)).result)).toBe(`released ${tag}`);
}

/** The audit lines of artifacts the proxy created for `tool`. */
const created = (tool: string) =>
  jsonLines(cli.stderr()).filter((line) => line.event === 'artifact.created' && line.tool === tool);

const pngFiles = (): string[] =>
  (readdirSync(artifactDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.png'));

describe('resuming a Streamable HTTP stream through the proxy', () => {
  test('a client whose POST stream broke mid-call reconnects with Last-Event-ID and gets the offloaded result, stored once', async () => {
    const session = await openSession(ALICE);
    const priming = await callAndDrop(session, 2, 'dropped');
    // The priming event: an id to resume from, the configured retry, no data.
    expect(priming).toEqual({ id: expect.any(String), retry: RETRY_MS, data: '' });

    // The call is still in flight upstream; let it answer while nobody listens.
    await release(session, 3, 'dropped');
    const resumed = await session.resume(priming.id!);
    expect(resumed.status).toBe(200);
    const replay = new SseReader(resumed.body!);
    const { result } = await replay.response(2);
    await replay.cancel();

    // The result the pipeline made: the image stored, a summary and a link in its place.
    expect(textsOf(result)).toMatch(/^image dropped$/m);
    const links = linksOf(result);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatch(/^artifact:\/\/art\//);
    // Made once: one artifact created (the audit log), one file, the one the replayed result names.
    const audit = created('held-image');
    expect(audit).toHaveLength(1);
    expect(links[0]).toBe(`artifact://${audit[0]!.id as string}`);
    expect(pngFiles()).toHaveLength(1);
    await session.close();
  });

  test('a stream of another session, or of another token, resumes nothing', async () => {
    const alice = await openSession(ALICE);
    const aliceAgain = await openSession(ALICE);
    const bob = await openSession(BOB);
    const priming = await callAndDrop(alice, 2, 'private');
    await release(alice, 3, 'private');

    // Bob names Alice's session: it does not exist for his token.
    const asBob = await alice.resume(priming.id!, { token: BOB });
    expect(asBob.status).toBe(404);
    // Bob's own session, Alice's other session: the event is not theirs.
    for (const other of [bob, aliceAgain]) {
      const response = await other.resume(priming.id!);
      expect(response.status).toBe(400);
      expect(await response.text()).not.toMatch(/image private/);
    }
    // An event id never issued.
    expect((await alice.resume('12345-1')).status).toBe(400);

    // Alice herself still gets her result.
    const mine = new SseReader((await alice.resume(priming.id!)).body!);
    expect(textsOf((await mine.response(2)).result)).toMatch(/^image private$/m);
    await mine.cancel();
    await Promise.all([alice, aliceAgain, bob].map((s) => s.close()));
  });

  test('an SDK client whose stream breaks after the priming event reconnects by itself and the call returns its result', async () => {
    const resumedWith: string[] = [];
    let dropped = false;
    // The network: the held-image call's stream is cut right after its first event.
    const flakyFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(url, init);
      const headers = new Headers(init?.headers);
      if (init?.method === 'GET' && headers.get('last-event-id')) resumedWith.push(headers.get('last-event-id')!);
      if (init?.method !== 'POST' || !String(init.body).includes('held-image') || !response.body) return response;
      dropped = true;
      return new Response(cutAfterFirstEvent(response.body), { status: response.status, headers: response.headers });
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: bearer(ALICE) },
      fetch: flakyFetch,
    });
    const client = new Client({ name: 'resume-sdk-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    try {
      const call = client.callTool({ name: 'held-image', arguments: { tag: 'sdk' } });
      // Released once its stream is open (a call answered within the proxy's first 50 ms gets a JSON body instead).
      while (!dropped) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(textsOf(await client.callTool({ name: 'release', arguments: { tag: 'sdk' } }))).toBe('released sdk');
      const result = await call;
      expect(dropped).toBe(true);
      expect(resumedWith).toHaveLength(1);
      expect(textsOf(result)).toMatch(/^image sdk$/m);
      expect(linksOf(result)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

const CONFORMANCE_FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'conformance-server.mjs');
const stopFixtures: Array<() => Promise<void>> = [];

/** The conformance fixture over Streamable HTTP (with an event store, retry 1000 ms); resolves with its endpoint. */
async function startConformanceFixture(): Promise<string> {
  const { match, child } = await startListening(
    NODE,
    [CONFORMANCE_FIXTURE, '--http', '0'],
    /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
    cliEnv(),
  );
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  stopFixtures.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  return match[1]!;
}

/** The proxy over `upstream`, on loopback without tokens; resolves with its endpoint. */
async function startProxy(upstream: string[]): Promise<string> {
  const proxy = startCli(['--http', '127.0.0.1:0', '--artifact-dir', join(dir, 'probe-artifacts'), ...upstream]);
  const [, url] = await proxy.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
  return url!;
}

// The suite's server-sse-polling probe sends an older protocol version in its header, so the SDK sends
// it no priming event (conformance.test.ts); here is the same probe with the version the session
// negotiated. test_reconnection closes its stream mid-call where it can (HTTP). Over an HTTP upstream the proxy
// does as its upstream does: it resumes the upstream's stream itself and ends its client's, which the client resumes
// (Wire.pause); a stdio upstream closes nothing, and the client's stream stays open until the answer.
describe('the SEP-1699 polling probe with the negotiated protocol version', () => {
  let fixture = '';
  beforeAll(async () => {
    fixture = await startConformanceFixture();
  });

  test.each([
    ['direct', true, () => Promise.resolve(fixture)],
    ['through the proxy, stdio upstream', false, () => startProxy(['--', NODE, CONFORMANCE_FIXTURE, '--stdio'])],
    ['through the proxy, HTTP upstream', true, () => startProxy(['--url', fixture])],
  ])('%s: a priming event with retry comes first, and the result arrives', async (_label, closes, endpoint) => {
    const session = await openSession(undefined, await endpoint());
    const response = await session.post(rpc(2, 'tools/call', { name: 'test_reconnection', arguments: {} }));
    const stream = new SseReader(response.body!);
    const priming = await stream.next();
    expect(priming).toEqual({ id: expect.any(String), retry: 1000, data: '' });
    // Read on: the response on this stream, or, if the server closes it first, on a resumed one.
    let lastEventId = priming!.id!;
    let answer: { result?: unknown } | undefined;
    for (;;) {
      const event = await stream.next();
      if (!event) break;
      if (event.id) lastEventId = event.id;
      const message = event.data ? (JSON.parse(event.data) as { id?: number; result?: unknown }) : {};
      if (message.id === 2) {
        answer = message;
        break;
      }
    }
    // The stream closed mid-call exactly where the server closes it.
    expect(answer === undefined).toBe(closes);
    if (!answer) {
      const resumed = new SseReader((await session.resume(lastEventId)).body!);
      answer = await resumed.response(2);
      await resumed.cancel();
    }
    expect(textsOf(answer.result)).toBe('Answered after the stream was closed.');
    await session.close();
  });
});

/** A body that passes its first server-sent event on, then fails as a dropped connection does. */
function cutAfterFirstEvent(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = '';
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      seen += new TextDecoder().decode(value);
      const end = seen.indexOf('\n\n');
      if (end < 0) return;
      controller.enqueue(new TextEncoder().encode(seen.slice(0, end + 2)));
      await reader.cancel();
      controller.error(new TypeError('terminated: the connection was reset'));
    },
    cancel: () => reader.cancel(),
  });
}
