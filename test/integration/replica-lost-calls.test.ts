// #34 finding 9: a call in flight on a replica killed with SIGKILL was never answered. Its client resumed the call's
// stream on a survivor, which adopted the session, replayed what Redis kept and ended the stream: the client waited for
// its own timeout. Now the survivor answers such a call with a JSON-RPC error (-32000, "send the request again") on
// the resumed stream, and keeps that answer, so the call is answered once, whichever replica a later resume reaches.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createClient } from 'redis';
import { leftovers, startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { handshake, rpc } from '../helpers/raw-session.js';
import { SseReader, type SseEvent } from '../helpers/sse-reader.js';
import { bearer, textsOf } from '../helpers/sidecar.js';

const ROUND_ROBIN = fileURLToPath(new URL('../fixtures/round-robin-proxy.mjs', import.meta.url));
const TOKEN = 'lost-calls-token-0123456789';
const PROTOCOL = '2025-11-25';
const LOST = /the answer to this request is lost: the replica serving it stopped/;

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-lost-calls-'));
let redis: RedisServer;
let config = '';
const orphans: number[] = [];
let balancer: ChildProcess | undefined;

interface Replica {
  cli: CliProcess;
  base: string;
}

async function startReplica(name: string): Promise<Replica> {
  const cli = startCli(['--http', '127.0.0.1:0', '--config', config, '--artifact-dir', join(dir, `artifacts-${name}`)]);
  const [, base] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m);
  return { cli, base: base! };
}

/** Kills a replica as `kill -9` would; its upstream processes (their own process groups) are the test's to stop. */
async function kill(replica: Replica): Promise<void> {
  const children = readFileSync(`/proc/${replica.cli.pid}/task/${replica.cli.pid}/children`, 'utf8').trim();
  if (children) orphans.push(...children.split(/\s+/).map(Number));
  replica.cli.child.kill('SIGKILL');
  await replica.cli.exit();
}

beforeAll(async () => {
  redis = await startRedis();
  config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'logLevel: info',
      'servers:',
      `  art: {command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(FIXTURES.artifact)}]}`,
      `auth: {tokens: [{name: lost, token: ${TOKEN}}]}`,
      'http: {retryMs: 200}',
      `redis: {url: "${redis.url}", keyPrefix: "lost-calls:", heartbeatMs: 1000}`,
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  balancer?.kill('SIGTERM');
  await stopAllCli();
  for (const pid of orphans) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  await redis?.stop();
  expect(leftovers()).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

const headers = (sessionId?: string): Record<string, string> => ({
  ...bearer(TOKEN),
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL,
  ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
});

/** The replica holding a session: the one whose address its record in Redis names. */
async function holderOf(sessionId: string, replicas: Replica[]): Promise<Replica> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    const url = await client.hGet(`lost-calls:session:${sessionId}`, 'url');
    const holder = replicas.find((replica) => replica.base === url);
    if (!holder) throw new Error(`no replica at ${String(url)} holds session ${sessionId}`);
    return holder;
  } finally {
    await client.close();
  }
}

/** The session's stream resumed through `base` after `lastEventId`: every event until the replica ends it. */
async function resume(base: string, sessionId: string, lastEventId: string): Promise<SseEvent[]> {
  const response = await fetch(`${base}/mcp`, {
    headers: { ...headers(sessionId), accept: 'text/event-stream', 'last-event-id': lastEventId },
  });
  expect(response.status).toBe(200);
  const reader = new SseReader(response.body!);
  const events: SseEvent[] = [];
  for (let event = await reader.next(); event; event = await reader.next()) events.push(event);
  return events;
}

test('a call cut by its replica’s death is answered with an error on the replica that adopts the session, once', async () => {
  const [a, b] = await Promise.all([startReplica('a'), startReplica('b')]);
  const { id: session } = await handshake(`${a.base}/mcp`, headers, 'lost-calls');
  // A call A holds (the tool answers once released, which never happens): the client has its stream's first event.
  const call = await fetch(`${a.base}/mcp`, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify(rpc(2, 'tools/call', { name: 'held-image', arguments: { tag: 'never' } })),
  });
  const priming = (await new SseReader(call.body!).next())!;
  expect(priming.id).toBeTruthy();

  await kill(a);

  // The client resumes on B, which adopts the session (A refuses connections) and answers the lost call.
  const events = await resume(b.base, session, priming.id!);
  const answers = events.filter((event) => event.data).map((event) => JSON.parse(event.data) as unknown);
  expect(answers).toEqual([{ jsonrpc: '2.0', id: 2, error: { code: -32000, message: expect.stringMatching(LOST) } }]);
  expect(b.cli.stderr()).toMatch(/adopting a session whose replica is gone/);
  // That answer is kept: resumed again from before it, the stream gives it again, not a second one; from after it,
  // nothing more.
  const again = await resume(b.base, session, priming.id!);
  expect(again.filter((event) => event.data).map((event) => JSON.parse(event.data).id)).toEqual([2]);
  expect((await resume(b.base, session, events.at(-1)!.id!)).filter((event) => event.data)).toEqual([]);

  // The session goes on on B: the call sent again is served.
  const retry = await fetch(`${b.base}/mcp`, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify(rpc(3, 'tools/call', { name: 'echo', arguments: { message: 'sent again' } })),
  });
  expect(textsOf((await new SseReader(retry.body!).response(3)).result)).toBe('sent again');
  await b.cli.stop();
});

test('an SDK client behind a load balancer gets the error for its call, and its session goes on', async () => {
  const replicas = await Promise.all([startReplica('c'), startReplica('d')]);
  const child = spawn(NODE, [ROUND_ROBIN, '--port', '0', '--backends', replicas.map((r) => r.base).join(',')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  balancer = child;
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const listening = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err), 10_000);
  const front = listening![1]!;

  const transport = new StreamableHTTPClientTransport(new URL(front), { requestInit: { headers: bearer(TOKEN) } });
  const client = new Client({ name: 'lost-calls-sdk', version: '1.0.0' });
  await client.connect(transport);
  try {
    let resumable = false;
    const cut = client.callTool(
      { name: 'held-image', arguments: { tag: 'never' } },
      { timeout: 30_000, onresumptiontoken: () => void (resumable = true) },
    );
    await waitFor(() => resumable, 10_000, 20, 'the call’s first event');
    await kill(await holderOf(transport.sessionId!, replicas));
    await expect(cut).rejects.toThrow(LOST);
    const again = await client.callTool({ name: 'echo', arguments: { message: 'after the cut' } });
    expect(textsOf(again)).toBe('after the cut');
  } finally {
    await client.close();
  }
});
