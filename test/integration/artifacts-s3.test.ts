// Artifacts in an S3-compatible bucket (artifacts.backend: s3), through real processes: s3rver from npm,
// gateways run from dist/cli.js over the artifact and big-result fixtures. Two gateways share the bucket,
// as replicas behind a load balancer would.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  jsonLines,
  leftovers,
  removeArtifactDir,
  runCli,
  startCli,
  stopAllCli,
  type CliProcess,
} from '../helpers/cli.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { S3_KEY, S3_SECRET, startRelay, startS3, withRelay, type S3Relay, type S3Server } from '../helpers/s3.js';
import { bearer, connectHttp, downloadUrlOf, linksOf, textsOf, type HttpClient } from '../helpers/sidecar.js';
// @ts-expect-error: a fixture module without types; taggedPng(tag) is the PNG the image tool answers.
import { taggedPng } from '../fixtures/artifact-server.mjs';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';
const SIGNING_KEY = 'shared-signing-key-0123456789abcdef012345';
const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-s3-test-'));
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const png = (tag: string): Buffer => taggedPng(tag) as Buffer;

process.env.TEST_S3_KEY = S3_KEY;
process.env.TEST_S3_SECRET = S3_SECRET;

interface Options {
  endpoint: string;
  publicEndpoint?: string;
  prefix?: string;
  via?: 'gateway' | 'presigned';
  ttlHours?: number;
}

function writeConfig(name: string, o: Options): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `logLevel: info
servers:
  art:
    command: ${JSON.stringify(NODE)}
    args: [${JSON.stringify(FIXTURES.artifact)}]
  big:
    command: ${JSON.stringify(NODE)}
    args: [${JSON.stringify(FIXTURES.bigResult)}]
auth:
  artifactScope: token
  tokens:
    - { name: alice, token: ${ALICE} }
    - { name: bob, token: ${BOB} }
artifacts:
  dir: ${JSON.stringify(join(dir, `${name}.tmp`))}
  backend: s3
  ttlHours: ${o.ttlHours ?? 168}
  s3:
    bucket: offload-test
    prefix: ${o.prefix ?? 'team/'}
    endpoint: ${o.endpoint}
${o.publicEndpoint ? `    publicEndpoint: ${o.publicEndpoint}\n` : ''}    accessKeyId: \${TEST_S3_KEY}
    secretAccessKey: \${TEST_S3_SECRET}
    partSizeBytes: 5242880
  links:
    signingKey: ${SIGNING_KEY}
    via: ${o.via ?? 'gateway'}
`,
  );
  return file;
}

async function serve(config: string): Promise<{ cli: CliProcess; base: string }> {
  const cli = startCli(['--http', '127.0.0.1:0', '--config', config]);
  const [, base] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m, 20_000);
  return { cli, base: base! };
}

async function readBlob(client: HttpClient, uri: string): Promise<Buffer> {
  const read = await client.client.readResource({ uri });
  return Buffer.from((read.contents[0] as { blob: string }).blob, 'base64');
}

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

let s3: S3Server;
let relay: S3Relay;
/** A reaches the bucket through the relay (requests seen, outage on demand); B directly. */
let a: { cli: CliProcess; base: string };
let b: { cli: CliProcess; base: string };
const clients: HttpClient[] = [];
async function connect(base: string, token: string): Promise<HttpClient> {
  const client = await connectHttp(base, token);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  s3 = await startS3();
  relay = await startRelay(s3.endpoint);
  [a, b] = await Promise.all([
    serve(writeConfig('a.yaml', { endpoint: relay.endpoint })),
    serve(writeConfig('b.yaml', { endpoint: s3.endpoint })),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  await relay?.close();
  await s3?.stop();
  removeArtifactDir();
  rmSync(dir, { recursive: true, force: true });
});

describe('artifacts in S3: one gateway', () => {
  test('an offloaded image is in the bucket under its sha256, read back byte-identical as a resource and by download (Range, ETag 304)', async () => {
    const alice = await connect(a.base, ALICE);
    const bytes = png('one');
    const result = await alice.client.callTool({ name: 'art__image', arguments: { tag: 'one' } });
    const [uri] = linksOf(result);
    expect(uri).toMatch(/^artifact:\/\/art\/image_[0-9a-f]{12}\.png$/);
    // No file on the gateway's disk: the scaled copy for vision models is made from the bytes read back.
    expect(textsOf(result)).toMatch(/Shown below scaled down to 1568x4 \(the file is 1600x4\)/);
    // The summary names where the bytes are: the object's s3:// URI.
    expect(textsOf(result)).not.toContain(dir);
    expect(await s3.keys(`team/content/${sha(bytes)}`)).toEqual([`team/content/${sha(bytes)}`]);
    const record = JSON.parse(await s3.getText(`team/records/${sha(bytes)}.json`));
    expect(record).toMatchObject({ id: uri!.slice('artifact://'.length), sha256: sha(bytes), size: bytes.length });

    expect(sha(await readBlob(alice, uri!))).toBe(sha(bytes));

    const url = downloadUrlOf(result);
    expect(url.startsWith(`${a.base}/artifacts/`)).toBe(true);
    const whole = await get(url);
    expect(whole.status).toBe(200);
    expect(sha(whole.body)).toBe(sha(bytes));
    const etag = whole.headers.get('etag')!;
    expect(etag).toBe(`"${sha(bytes)}"`);
    const part = await get(url, { range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytes.length}`);
    expect(part.body.equals(bytes.subarray(10, 20))).toBe(true);
    expect((await get(url, { 'if-none-match': etag })).status).toBe(304);
    // A ranged GET reached the bucket as a ranged GET, not a whole object cut down by the gateway.
    expect(relay.requests.some((r) => r.startsWith(`GET /offload-test/team/content/${sha(bytes)}`))).toBe(true);
  });

  test('a payload above the part size goes up as a multipart upload and comes back whole', async () => {
    const alice = await connect(a.base, ALICE);
    relay.requests.length = 0;
    const result = await alice.client.callTool({ name: 'big__big-image', arguments: { mb: 20 } });
    const [uri] = linksOf(result);
    expect(uri).toBeDefined();
    const uploads = relay.requests.filter((r) => /^POST \/offload-test\/team\/content\/[0-9a-f]{64}\?uploads/.test(r));
    const parts = relay.requests.filter((r) =>
      /^PUT \/offload-test\/team\/content\/[0-9a-f]{64}\?.*partNumber=/.test(r),
    );
    expect(uploads).toHaveLength(1);
    // 20 MiB in parts of 5 MiB: 4 or 5 parts (the PNG's header and chunks add a few bytes).
    expect(parts.length).toBeGreaterThanOrEqual(4);
    const download = await get(downloadUrlOf(result));
    expect(download.status).toBe(200);
    expect(download.body.length).toBeGreaterThan(20 * MiB - 1);
    const key = (await s3.keys('team/content/')).find((k) => uploads[0]!.includes(k))!;
    expect(sha(download.body)).toBe(key.split('/').pop());
  }, 60_000);
});

describe('artifacts in S3: two gateways sharing the bucket', () => {
  test('the other gateway serves an artifact it did not write, to its owner only', async () => {
    const aliceA = await connect(a.base, ALICE);
    const bytes = png('shared');
    const result = await aliceA.client.callTool({ name: 'art__image', arguments: { tag: 'shared' } });
    const [uri] = linksOf(result);
    const id = uri!.slice('artifact://'.length);

    const aliceB = await connect(b.base, ALICE);
    expect(sha(await readBlob(aliceB, uri!))).toBe(sha(bytes));
    const byToken = await get(`${b.base}/artifacts/${id}`, bearer(ALICE));
    expect(byToken.status).toBe(200);
    expect(sha(byToken.body)).toBe(sha(bytes));
    // The signed link A made opens on B too (the signing key is shared).
    const link = new URL(downloadUrlOf(result));
    expect(sha((await get(`${b.base}${link.pathname}${link.search}`)).body)).toBe(sha(bytes));

    expect((await get(`${b.base}/artifacts/${id}`, bearer(BOB))).status).toBe(404);
    const bobB = await connect(b.base, BOB);
    await expect(bobB.client.readResource({ uri: uri! })).rejects.toThrow(/not found/i);
  });

  test('identical bytes from two gateways are stored once; the second owner can read them on either', async () => {
    const bytes = png('dedup');
    const aliceA = await connect(a.base, ALICE);
    const bobB = await connect(b.base, BOB);
    const first = linksOf(await aliceA.client.callTool({ name: 'art__image', arguments: { tag: 'dedup' } }))[0]!;
    const second = linksOf(await bobB.client.callTool({ name: 'art__image', arguments: { tag: 'dedup' } }))[0]!;
    expect(second).toBe(first);
    expect(await s3.keys(`team/content/${sha(bytes)}`)).toHaveLength(1);
    expect(await s3.keys(`team/owners/${sha(bytes)}/`)).toHaveLength(2);
    // A knew the record with alice only: bob's request makes it look again.
    const bobA = await connect(a.base, BOB);
    expect(sha(await readBlob(bobA, first))).toBe(sha(bytes));
    expect((await get(`${a.base}/artifacts/${first.slice('artifact://'.length)}`, bearer(BOB))).status).toBe(200);
  });

  test('the gallery and artifact_list of one gateway show what the other stored', async () => {
    const bobA = await connect(a.base, BOB);
    const stored = linksOf(await bobA.client.callTool({ name: 'art__image', arguments: { tag: 'listed' } }))[0]!;
    const page = await get(`${b.base}/artifacts`, bearer(BOB));
    expect(page.status).toBe(200);
    expect(page.body.toString('utf8')).toContain(`data-id="${stored.slice('artifact://'.length)}"`);
  });
});

describe('artifacts in S3: a gateway starting over a full bucket', () => {
  test('it serves before it has read every record: an artifact is read meanwhile, and resources/list and artifact_list wait for the reading', async () => {
    const aliceA = await connect(a.base, ALICE);
    const [first] = linksOf(await aliceA.client.callTool({ name: 'art__image', arguments: { tag: 'early-1' } }));
    const [second] = linksOf(await aliceA.client.callTool({ name: 'art__image', arguments: { tag: 'early-2' } }));
    await withRelay(s3.endpoint, async (slow) => {
      // The read of the second's record waits: before, the gateway read every record before it listened.
      slow.hold = (request) => request.startsWith('GET ') && request.includes(`/records/${sha(png('early-2'))}.json`);
      const c = await serve(writeConfig('c.yaml', { endpoint: slow.endpoint }));
      const aliceC = await connect(c.base, ALICE);
      expect(sha(await readBlob(aliceC, first!))).toBe(sha(png('early-1')));
      let listed = false;
      const resources = aliceC.client.listResources().finally(() => (listed = true));
      const tool = aliceC.client.callTool({ name: 'artifact_list', arguments: {} }).finally(() => (listed = true));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(listed).toBe(false);
      slow.release();
      expect((await resources).resources.map((r) => r.uri)).toEqual(expect.arrayContaining([first, second]));
      expect(textsOf(await tool)).toContain(second!.slice('artifact://'.length));
    });
  });
});

describe('artifacts in S3: presigned links', () => {
  test('with links.via presigned the summary links the bucket itself, and a plain GET downloads the bytes', async () => {
    const c = await serve(writeConfig('c.yaml', { endpoint: s3.endpoint, via: 'presigned' }));
    const alice = await connect(c.base, ALICE);
    const bytes = png('presigned');
    const url = downloadUrlOf(await alice.client.callTool({ name: 'art__image', arguments: { tag: 'presigned' } }));
    expect(url.startsWith(`${s3.endpoint}/offload-test/team/content/${sha(bytes)}?`)).toBe(true);
    expect(url).toMatch(/X-Amz-Signature=/);
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(sha(res.body)).toBe(sha(bytes));
    // Valid for links.ttlSeconds, served with the type and name the gateway would give it. (s3rver does not check
    // signatures, so that a forged one is refused cannot be shown here.)
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="image_[0-9a-f]{12}\.png"/);
    await c.cli.stop();
  }, 60_000);

  test('with s3.publicEndpoint the URLs name the host clients reach, not the one the gateway uses', async () => {
    const outside = await startRelay(s3.endpoint);
    const c = await serve(
      writeConfig('c-public.yaml', { endpoint: s3.endpoint, publicEndpoint: outside.endpoint, via: 'presigned' }),
    );
    const alice = await connect(c.base, ALICE);
    const bytes = png('public');
    const url = downloadUrlOf(await alice.client.callTool({ name: 'art__image', arguments: { tag: 'public' } }));
    expect(url.startsWith(`${outside.endpoint}/offload-test/team/content/${sha(bytes)}?`)).toBe(true);
    expect(sha((await get(url)).body)).toBe(sha(bytes));
    // The gateway itself stored through the inside name: the only request the outside name saw is the client's.
    expect(outside.requests).toEqual([`GET ${new URL(url).pathname}${new URL(url).search}`]);
    await c.cli.stop();
    await outside.close();
  }, 60_000);
});

describe('artifacts in S3: when the bucket is unreachable', () => {
  test('at startup: the error names the bucket and the URL; payloads stay inline with the reason', async () => {
    const dead = await startRelay(s3.endpoint);
    dead.down = true;
    const d = await serve(writeConfig('d.yaml', { endpoint: dead.endpoint }));
    const logged = jsonLines(d.cli.stderr()).find((l) => l.msg === 'artifact store unavailable');
    expect(String(logged?.err)).toContain(`S3 bucket "offload-test" at ${dead.endpoint} is not usable`);
    const alice = await connect(d.base, ALICE);
    const bytes = png('inline');
    const result = await alice.client.callTool({ name: 'art__image', arguments: { tag: 'inline' } });
    expect(textsOf(result)).toMatch(/could not be stored and is passed on inline: S3 bucket "offload-test" at http/);
    const image = (result.content as { type: string; data?: string }[]).find((c) => c.type === 'image');
    expect(sha(Buffer.from(image!.data!, 'base64'))).toBe(sha(bytes));
    await d.cli.stop();
    await dead.close();
  }, 60_000);

  test('mid-run: the call in the outage keeps its payload inline, a download is 503 not 404; then all resumes', async () => {
    const alice = await connect(a.base, ALICE);
    const before = await alice.client.callTool({ name: 'art__image', arguments: { tag: 'before-outage' } });
    const url = downloadUrlOf(before);
    relay.down = true;
    try {
      const refused = await get(url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      const bytes = png('outage');
      const result = await alice.client.callTool({ name: 'art__image', arguments: { tag: 'outage' } });
      expect(textsOf(result)).toMatch(/could not be stored and is passed on inline: .*S3 bucket "offload-test"/);
      const image = (result.content as { type: string; data?: string }[]).find((c) => c.type === 'image');
      expect(sha(Buffer.from(image!.data!, 'base64'))).toBe(sha(bytes));
    } finally {
      relay.down = false;
    }
    expect(sha((await get(url)).body)).toBe(sha(png('before-outage')));
    const after = await alice.client.callTool({ name: 'art__image', arguments: { tag: 'after-outage' } });
    expect(linksOf(after)).toHaveLength(1);
    expect(sha(await readBlob(alice, linksOf(after)[0]!))).toBe(sha(png('after-outage')));
  }, 60_000);

  test('mcp-offload gc against an unreachable bucket fails with the bucket and the URL', async () => {
    const dead = await startRelay(s3.endpoint);
    dead.down = true;
    const out = await runCli(['gc', '--config', writeConfig('gc-dead.yaml', { endpoint: dead.endpoint })], 30_000);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`mcp-offload gc: S3 bucket "offload-test" at ${dead.endpoint} is not usable`);
    expect(out.stderr).not.toMatch(/^\s+at /m);
    await dead.close();
  }, 40_000);
});

describe('artifacts in S3: garbage collection', () => {
  test('two gc runs at once remove each expired artifact exactly once and nothing else', async () => {
    const prefix = 'gc/';
    const config = writeConfig('gc.yaml', { endpoint: s3.endpoint, prefix, ttlHours: 24 });
    const e = await serve(config);
    const alice = await connect(e.base, ALICE);
    const uris: string[] = [];
    for (let i = 0; i < 8; i++)
      uris.push(linksOf(await alice.client.callTool({ name: 'art__image', arguments: { tag: `gc-${i}` } }))[0]!);
    await e.cli.stop();
    // Five of them were last stored 30 days ago.
    const old = [0, 1, 2, 3, 4].map((i) => sha(png(`gc-${i}`)));
    for (const hash of old) {
      const key = `${prefix}records/${hash}.json`;
      const record = JSON.parse(await s3.getText(key));
      const then = new Date(Date.now() - 30 * 24 * 3600 * 1000).toISOString();
      await s3.putText(key, JSON.stringify({ ...record, created: then, lastStored: then }));
    }
    const [one, two] = await Promise.all([
      runCli(['gc', '--config', config], 30_000),
      runCli(['gc', '--config', config], 30_000),
    ]);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    const removed = (text: string) => Number(/removed (\d+) artifact/.exec(text)?.[1]);
    expect(removed(one.stderr) + removed(two.stderr)).toBe(5);
    const content = await s3.keys(`${prefix}content/`);
    expect(content.sort()).toEqual([5, 6, 7].map((i) => `${prefix}content/${sha(png(`gc-${i}`))}`).sort());
    expect((await s3.keys(`${prefix}records/`)).length).toBe(3);
    expect(await s3.keys(`${prefix}claims/`)).toEqual([]);
    for (const hash of old) expect(await s3.keys(`${prefix}owners/${hash}/`)).toEqual([]);
    // What stays is still served, to its owner.
    const f = await serve(config);
    const again = await connect(f.base, ALICE);
    expect(sha(await readBlob(again, uris[6]!))).toBe(sha(png('gc-6')));
    await expect(again.client.readResource({ uri: uris[0]! })).rejects.toThrow(/not found/i);
    await f.cli.stop();
  }, 90_000);
});

describe('artifacts in S3: configuration', () => {
  test('inconsistent backend settings are reported at file:line', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      `servers:
  art:
    command: node
artifacts:
  backend: s3
  links:
    via: presigned
    ttlSeconds: 900000
`,
    );
    const out = await runCli(['validate', '--config', file]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`${file}:5:12: backend s3 needs artifacts.s3 with at least a bucket`);
    expect(out.stderr).toContain(`${file}:8:17: presigned URLs last at most 604800 seconds`);
    const local = join(dir, 'bad-local.yaml');
    writeFileSync(
      local,
      `servers:
  art:
    command: node
artifacts:
  s3:
    bucket: x
    accessKeyId: only-the-id
  links:
    via: presigned
`,
    );
    const out2 = await runCli(['validate', '--config', local]);
    expect(out2.code).toBe(1);
    expect(out2.stderr).toContain(`${local}:5:3: artifacts.s3 is set but artifacts are kept locally`);
    expect(out2.stderr).toMatch(new RegExp(`${local}:6:13: .*bucket`));
    expect(out2.stderr).toContain(`${local}:7:5: give accessKeyId and secretAccessKey together`);
    expect(out2.stderr).toContain(`${local}:9:10: presigned links need backend s3`);
  });
});
