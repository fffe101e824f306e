// Three replicas of the HTTP gateway (dist/cli.js --http) behind the round-robin proxy fixture, sharing sessions,
// streams and keys in a real redis-server and their artifacts in an s3rver bucket: 20 clients with 50 calls each,
// spread over every replica, one replica killed mid-run; then every artifact read back from every replica by its
// owner only, and two garbage collections at once over the shared bucket.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { leftovers, runCli, startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { S3_KEY, S3_SECRET, startS3, type S3Server } from '../helpers/s3.js';
import { connectHttp, linksOf, type HttpClient } from '../helpers/sidecar.js';
// @ts-expect-error: a fixture module without types; taggedPng(tag) is the PNG the image tool answers.
import { taggedPng } from '../fixtures/artifact-server.mjs';

const ROUND_ROBIN = fileURLToPath(new URL('../fixtures/round-robin-proxy.mjs', import.meta.url));
const CLIENTS = 20;
const CALLS = 50;
const KILL_AFTER = 300;
const PREFIX = 'scale/';
const tokens = Array.from({ length: CLIENTS }, (_, i) => `client-${String(i).padStart(2, '0')}-token-0123456789`);
const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const png = (tag: string): Buffer => taggedPng(tag) as Buffer;

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-scale-'));
let redis: RedisServer;
let s3: S3Server;
let config: string;
let balancer: ChildProcess | undefined;

interface Replica {
  cli: CliProcess;
  base: string;
}

async function startReplica(): Promise<Replica> {
  const cli = startCli(['--http', '127.0.0.1:0', '--config', config]);
  // Generous: s3rver answers in this process, one CPU-bound request at a time, and a replica's first reading of the
  // bucket (1,000 GETs after the run) runs beside its start; on a loaded 2-core machine, when a replica still read
  // every record before it listened, one start took over 20 s.
  const [, base] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m, 60_000);
  return { cli, base: base! };
}

async function startBalancer(backends: string[]): Promise<string> {
  const child = spawn(NODE, [ROUND_ROBIN, '--port', '0', '--backends', backends.join(',')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  balancer = child;
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const found = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(err), 10_000);
  return found![1]!;
}

/** The blob of an artifact as `client` reads it, or the error it gets. */
async function read(client: HttpClient, uri: string): Promise<Buffer> {
  const result = await client.client.readResource({ uri });
  return Buffer.from((result.contents[0] as { blob: string }).blob, 'base64');
}

beforeAll(async () => {
  [redis, s3] = await Promise.all([startRedis(), startS3('scale-test')]);
  config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'logLevel: warn',
      'servers:',
      `  art: {command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(FIXTURES.artifact)}]}`,
      'auth:',
      '  artifactScope: token',
      '  tokens:',
      ...tokens.map((token, i) => `    - {name: c${i}, token: ${token}}`),
      'http: {retryMs: 200}',
      `redis: {url: "${redis.url}", keyPrefix: "scale-test:", heartbeatMs: 1000}`,
      'artifacts:',
      `  dir: ${JSON.stringify(join(dir, 'tmp'))}`,
      '  backend: s3',
      '  ttlHours: 24',
      `  s3: {bucket: scale-test, prefix: ${PREFIX}, endpoint: "${s3.endpoint}", accessKeyId: ${S3_KEY}, secretAccessKey: ${S3_SECRET}}`,
      '',
    ].join('\n'),
  );
}, 60_000);

afterAll(async () => {
  balancer?.kill('SIGTERM');
  await stopAllCli();
  await Promise.all([redis?.stop(), s3?.stop()]);
  expect(leftovers()).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

test('20 clients x 50 calls over three replicas, one killed mid-run: every result comes, every artifact is readable from every replica by its owner only, and two collections at once remove each expired artifact once', async () => {
  const replicas = await Promise.all([startReplica(), startReplica(), startReplica()]);
  const front = await startBalancer(replicas.map((r) => r.base));

  // Each client calls in turn; a call that fails because its replica died is sent again (a client's retry), on
  // the same session, which a surviving replica then serves or adopts.
  let completed = 0;
  let retries = 0;
  let killed = false;
  const victim = replicas[2]!;
  const uris: string[][] = tokens.map(() => []);
  await Promise.all(
    tokens.map(async (token, c) => {
      const client = await connectHttp(front, token);
      for (let k = 0; k < CALLS; k++) {
        for (let attempt = 1; ; attempt++) {
          try {
            const result = await client.client.callTool({ name: 'image', arguments: { tag: `c${c}-${k}` } });
            const [uri] = linksOf(result);
            expect(uri).toMatch(/^artifact:\/\//);
            uris[c]!.push(uri!);
            break;
          } catch (error) {
            if (!killed || attempt >= 5) throw error;
            retries++;
          }
        }
        if (++completed === KILL_AFTER && !killed) {
          killed = true;
          victim.cli.child.kill('SIGKILL');
        }
      }
      await client.client.close();
    }),
  );
  expect(killed).toBe(true);
  expect(uris.map((list) => list.length)).toEqual(tokens.map(() => CALLS));

  // Every replica that is up, and one started after the run, serves each owner its artifacts, byte for byte, and
  // another token none of them.
  const spread = (await (await fetch(`${front.replace(/\/mcp$/, '')}/__backends`)).json()) as { counts: number[] };
  expect(spread.counts.every((count) => count > 0)).toBe(true);
  const fresh = await startReplica();
  for (const replica of [replicas[0]!, replicas[1]!, fresh]) {
    await Promise.all(
      tokens.map(async (token, c) => {
        const owner = await connectHttp(replica.base, token);
        for (const [k, uri] of uris[c]!.entries()) expect(sha(await read(owner, uri))).toBe(sha(png(`c${c}-${k}`)));
        const other = await connectHttp(replica.base, tokens[(c + 1) % CLIENTS]!);
        await expect(read(other, uris[c]![0]!)).rejects.toThrow(/not found/i);
        await Promise.all([owner.client.close(), other.client.close()]);
      }),
    );
  }

  // Two collections at once over the shared bucket: the artifacts of the first five clients were last stored 30
  // days ago (ttlHours 24), so exactly those go, each once, and every other stays readable.
  const expiredTags = tokens.slice(0, 5).flatMap((_, c) => Array.from({ length: CALLS }, (_, k) => `c${c}-${k}`));
  const then = new Date(Date.now() - 30 * 24 * 3600 * 1000).toISOString();
  for (const tag of expiredTags) {
    const key = `${PREFIX}records/${sha(png(tag))}.json`;
    const record = JSON.parse(await s3.getText(key)) as Record<string, unknown>;
    await s3.putText(key, JSON.stringify({ ...record, created: then, lastStored: then }));
  }
  // Generous: s3rver runs in this process and answers the ~3,500 requests of 250 removals one CPU-bound request at a
  // time; on a loaded 2-core CI machine that took over a minute (the removals go 8 at once, which only pays against a
  // real bucket's latency).
  const [one, two] = await Promise.all([
    runCli(['gc', '--config', config, '--log-level', 'info'], 180_000),
    runCli(['gc', '--config', config, '--log-level', 'info'], 180_000),
  ]);
  expect([one.code, two.code]).toEqual([0, 0]);
  const removed = (text: string) => Number(/removed (\d+) artifact/.exec(text)?.[1] ?? 0);
  // What the two said goes with a miscount (info: what each would collect and claimed; a removal that failed).
  const total = removed(one.stderr) + removed(two.stderr);
  if (total !== expiredTags.length)
    throw new Error(`the two collections removed ${total} of ${expiredTags.length}:\n${one.stderr}\n${two.stderr}`);
  const content = new Set(await s3.keys(`${PREFIX}content/`));
  for (const tag of expiredTags) expect(content.has(`${PREFIX}content/${sha(png(tag))}`)).toBe(false);
  expect(content.size).toBe((CLIENTS - 5) * CALLS);
  expect(await s3.keys(`${PREFIX}claims/`)).toEqual([]);
  const after = await startReplica();
  const kept = await connectHttp(after.base, tokens[7]!);
  expect(sha(await read(kept, uris[7]![3]!))).toBe(sha(png('c7-3')));
  const gone = await connectHttp(after.base, tokens[2]!);
  await expect(read(gone, uris[2]![3]!)).rejects.toThrow(/not found/i);
  await Promise.all([kept.client.close(), gone.client.close()]);
  process.stderr.write(`replicas-scale: ${completed} calls, ${retries} sent again after the kill\n`);
}, 480_000);
