// The store over a shared bucket, two instances in one process standing for two replicas, against s3rver:
// the rules that keep a record from ever outliving its bytes when replicas put and collect at once.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ArtifactStore } from '../../src/artifacts/store.js';
import type { S3StoreOptions, StoreOptions } from '../../src/artifacts/types.js';
import { silentLogger } from '../../src/logger.js';
import { waitFor } from '../helpers/fixtures.js';
import { S3_KEY, S3_SECRET, startS3, withRelay, type S3Relay, type S3Server } from '../helpers/s3.js';

const HOUR = 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-s3-store-'));
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
let s3: S3Server;
const stores: ArtifactStore[] = [];

beforeAll(async () => {
  s3 = await startS3('store-test');
});

afterAll(async () => {
  for (const store of stores) store.close();
  await s3.stop();
  rmSync(dir, { recursive: true, force: true });
});

let run = 0;
/** A replica's store over the bucket under this test's prefix, with its own clock. */
async function replica(
  prefix: string,
  now: () => number = Date.now,
  quotaBytes = 0,
  endpoint = s3.endpoint,
  timeoutMs = 30_000,
): Promise<ArtifactStore> {
  const bucket: S3StoreOptions = {
    bucket: s3.bucket,
    prefix,
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    accessKeyId: S3_KEY,
    secretAccessKey: S3_SECRET,
    partSizeBytes: 5 * 1024 * 1024,
    uploadConcurrency: 2,
    timeoutMs,
  };
  const options: StoreOptions = {
    dir: join(dir, `r${run++}`),
    s3: bucket,
    maxArtifactBytes: 0,
    quotaBytes,
    ttlMs: HOUR,
    now,
  };
  const store = new ArtifactStore(options, silentLogger);
  await store.init();
  stores.push(store);
  return store;
}

const put = (store: ArtifactStore, text: string, owner: string) =>
  store.put({ data: { bytes: Buffer.from(text) }, server: 's', tool: 't', owner });

/** Holds the read of `sha256`'s record under `prefix`; the function answered waits until that read has come. */
function holdRecordRead(relay: S3Relay, prefix: string, sha256: string): () => Promise<unknown> {
  relay.hold = (request) => request.startsWith('GET ') && request.includes(`/${prefix}records/${sha256}.json`);
  return () => waitFor(() => relay.requests.some((r) => relay.hold?.(r) ?? false), 10_000, 5, 'the held record read');
}

test('a collection keeps bytes another replica stored again since this one last looked', async () => {
  let clock = Date.now();
  const a = await replica('stale/', () => clock);
  const b = await replica('stale/', () => clock);
  const record = await put(a, 'stored twice', 'alice');
  await b.refresh();
  clock += 2 * HOUR;
  // B hands the same bytes out again: fresh in the bucket, still old in A's index.
  await put(b, 'stored twice', 'bob');
  expect(a.get(record.id)?.lastStored).toBe(record.lastStored);
  const result = await a.gc(clock);
  expect(result.removed).toBe(0);
  expect(await s3.keys(`stale/content/${record.sha256}`)).toHaveLength(1);
  expect((await b.read(record.id)).toString()).toBe('stored twice');
  expect((await a.find(record.uri, 'bob'))?.owners.sort()).toEqual(['alice', 'bob']);
});

test('expired everywhere, it goes: record first, then owners and bytes, and the other replica forgets it', async () => {
  let clock = Date.now();
  const a = await replica('expired/', () => clock);
  const b = await replica('expired/', () => clock);
  const record = await put(a, 'old news', 'alice');
  await b.refresh();
  expect(b.get(record.id)).toBeDefined();
  clock += 2 * HOUR;
  expect((await a.gc(clock)).removed).toBe(1);
  expect(await s3.keys('expired/')).toEqual([]);
  await expect(b.read(record.id)).rejects.toThrow(/gone from the bucket/);
  expect(b.get(record.id)).toBeUndefined();
  expect(await b.find(record.uri, 'alice')).toBeUndefined();
});

test('a refresh in the middle of a collection (every 30 s, a long one meets it) does not make it skip the rest', async () => {
  let clock = Date.now();
  const a = await replica('refreshed/', () => clock);
  const COUNT = 30;
  for (let i = 0; i < COUNT; i++) await put(a, `expired ${i}`, 'alice');
  clock += 2 * HOUR;
  const collecting = a.gc(clock);
  // Once the first is gone, the refresh puts a new copy of every record in the index, as the timer's would when
  // other replicas changed them all: here by forgetting which versions it read (the ETags it keeps per record).
  await waitFor(async () => (await s3.keys('refreshed/content/')).length < COUNT, 20_000, 5, 'a first removal');
  (a as unknown as { backend: { etags: Map<string, string> } }).backend.etags.clear();
  await a.refresh();
  expect((await collecting).removed).toBe(COUNT);
  expect(await s3.keys('refreshed/')).toEqual([]);
});

test('a collection removes several artifacts at once, each once (one after another, 250 took over a minute)', () =>
  withRelay(s3.endpoint, async (relay) => {
    let clock = Date.now();
    const a = await replica('parallel/', () => clock, 0, relay.endpoint);
    const COUNT = 24;
    for (let i = 0; i < COUNT; i++) await put(a, `parallel ${i}`, 'alice');
    clock += 2 * HOUR;
    expect((await a.gc(clock)).removed).toBe(COUNT);
    expect(await s3.keys('parallel/')).toEqual([]);
    const contentDelete = (r: string) => r.startsWith('DELETE ') && r.includes('/parallel/content/');
    expect(relay.requests.filter(contentDelete)).toHaveLength(COUNT);
    expect(relay.atOnce(contentDelete)).toBeGreaterThan(1);
  }));

test('a replica opens without reading every record first: meanwhile an artifact is found, a put of stored bytes finds their record, and the lists wait for the reading', () =>
  withRelay(s3.endpoint, async (relay) => {
    const writer = await replica('opening/');
    const records = [];
    for (let i = 0; i < 6; i++) records.push(await put(writer, `opened ${i}`, 'alice'));
    // The reading of the first record waits: the replica must open all the same (reading every record before it
    // opened held a replica's start for as long as the bucket is large).
    const arrived = holdRecordRead(relay, 'opening/', records[0]!.sha256);
    const late = await Promise.race([
      replica('opening/', Date.now, 0, relay.endpoint),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the replica did not open while a record read was held')), 10_000).unref(),
      ),
    ]);
    let listed = false;
    void late.loaded().then(() => (listed = true));
    await arrived();
    expect(listed).toBe(false);
    // Another artifact, not yet indexed here, is found in the bucket, with its bytes; stored bytes put again are
    // the same artifact, with the new owner added.
    const other = records[3]!;
    expect((await late.find(other.uri, 'alice'))?.id).toBe(other.id);
    expect((await late.read(other.id)).toString()).toBe('opened 3');
    const again = await put(late, 'opened 4', 'bob');
    expect(again.id).toBe(records[4]!.id);
    expect(again.owners.sort()).toEqual(['alice', 'bob']);
    expect(listed).toBe(false);
    relay.release();
    await late.loaded();
    const ids = (owner: string) => late.list({ owner }).map((r) => r.id);
    expect(ids('alice').sort()).toEqual(records.map((r) => r.id).sort());
    expect(ids('bob')).toEqual([again.id]);
  }));

test('a refresh leaves the records nothing changed as they are, and replaces those another replica changed', async () => {
  const a = await replica('kept/');
  const b = await replica('kept/');
  const one = await put(a, 'one', 'alice');
  const two = await put(a, 'two', 'alice');
  // The index's own records: what a refresh would put in their place is what this test is about.
  const indexed = (sha256: string) =>
    (b as unknown as { index: { byContent(sha256: string): object | undefined } }).index.byContent(sha256);
  await b.refresh();
  const [first, second] = [indexed(one.sha256), indexed(two.sha256)];
  expect(first).toBeDefined();
  await b.refresh();
  expect(indexed(one.sha256)).toBe(first);
  expect(indexed(two.sha256)).toBe(second);
  await put(a, 'two', 'bob');
  await b.refresh();
  expect(indexed(one.sha256)).toBe(first);
  expect(indexed(two.sha256)).not.toBe(second);
  expect(b.get(two.id)?.owners.sort()).toEqual(['alice', 'bob']);
  // An owner alone (its own key, as a replica adds one) changes the record too.
  await s3.putText(`kept/owners/${one.sha256}/${Buffer.from('carol').toString('base64url')}`, '');
  await b.refresh();
  expect(indexed(one.sha256)).not.toBe(first);
  expect(b.get(one.id)?.owners.sort()).toEqual(['alice', 'carol']);
});

test('what a refresh reads of the bucket does not undo an owner a put added here while it was reading', () =>
  withRelay(s3.endpoint, async (relay) => {
    const writer = await replica('reading/');
    const known = await put(writer, 'known here', 'alice');
    const b = await replica('reading/', Date.now, 0, relay.endpoint);
    await b.loaded();
    expect(b.get(known.id)?.owners).toEqual(['alice']);
    // A record new to b: its read waits, and holds the refresh after b's listing.
    const fresh = await put(writer, 'new there', 'alice');
    const arrived = holdRecordRead(relay, 'reading/', fresh.sha256);
    const refreshed = b.refresh();
    await arrived();
    // Meanwhile bob gets the known bytes on b: the record b holds gains him in place.
    await put(b, 'known here', 'bob');
    relay.release();
    await refreshed;
    expect(b.get(known.id)?.owners.sort()).toEqual(['alice', 'bob']);
    expect(b.list({ owner: 'bob' }).map((r) => r.id)).toEqual([known.id]);
    expect(b.get(fresh.id)).toBeDefined();
  }));

test('a bucket that takes a request and never answers: the request fails after timeoutMs, each of its 3 attempts, and the store goes on', () =>
  withRelay(s3.endpoint, async (relay) => {
    const writer = await replica('silent/');
    const record = await put(writer, 'held bytes', 'alice');
    // The SDK alone waits for ever: a read, and the first reading of the bucket that the lists wait for, would hang.
    const recordRead = (r: string) => r.startsWith('GET ') && r.includes(`/silent/records/${record.sha256}.json`);
    relay.hold = recordRead;
    const a = await replica('silent/', Date.now, 0, relay.endpoint, 300);
    await a.loaded();
    expect(relay.requests.filter(recordRead)).toHaveLength(3);
    expect(a.list({ owner: 'alice' })).toEqual([]);
    // The record answers now, the bytes do not.
    const contentRead = (r: string) => r.startsWith('GET ') && r.includes(`/silent/content/${record.sha256}`);
    relay.hold = contentRead;
    await a.refresh();
    expect(a.list({ owner: 'alice' }).map((r) => r.id)).toEqual([record.id]);
    await expect(a.read(record.id)).rejects.toThrow(/cannot read artifact from .*TimeoutError.*300 ms of inactivity/);
    expect(relay.requests.filter(contentRead)).toHaveLength(3);
    // Once the bucket answers again, so does the store.
    relay.release();
    expect((await a.read(record.id)).toString()).toBe('held bytes');
  }));

test('bytes deleted under a record are uploaded again by the next put of them', async () => {
  const a = await replica('healed/');
  const record = await put(a, 'lost and found', 'alice');
  await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `healed/content/${record.sha256}` }));
  const again = await put(a, 'lost and found', 'bob');
  expect(again.id).toBe(record.id);
  expect((await a.read(record.id)).toString()).toBe('lost and found');
  expect(again.owners.sort()).toEqual(['alice', 'bob']);
});

test('gc forgets a record whose bytes are gone, and sweeps old bytes no record names, not young ones', async () => {
  const a = await replica('sweep/');
  const gone = await put(a, 'record without bytes', 'alice');
  await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `sweep/content/${gone.sha256}` }));
  const orphan = (text: string) => sha(Buffer.from(text));
  for (const text of ['old orphan', 'young orphan'])
    await s3.client.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: `sweep/content/${orphan(text)}`, Body: Buffer.from(text) }),
    );
  // s3rver's LastModified is the object file's mtime.
  const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
  const file = join(s3.directory, s3.bucket, 'sweep', 'content', `${orphan('old orphan')}._S3rver_object`);
  utimesSync(file, twoHoursAgo, twoHoursAgo);
  const kept = await put(a, 'kept', 'alice');
  const result = await a.gc();
  expect(result.forgotten).toBe(1);
  expect(await s3.keys('sweep/content/')).toEqual(
    [`sweep/content/${orphan('young orphan')}`, `sweep/content/${kept.sha256}`].sort(),
  );
  expect(await s3.keys(`sweep/records/${gone.sha256}`)).toEqual([]);
});

test('owners added by two replicas at the same moment are both kept', async () => {
  const a = await replica('owners/');
  const b = await replica('owners/');
  const [one, two] = await Promise.all([put(a, 'shared bytes', 'alice'), put(b, 'shared bytes', 'bob')]);
  expect(one.sha256).toBe(two.sha256);
  // s3rver writes an object in place and may answer the PUT before the bytes are all on disk (S3 replaces objects
  // atomically): the third replica starts once the record written twice reads whole. Two PUTs of it at once can
  // even leave it torn for good on s3rver (seen once in a CI run, never on S3): the record is then written again by
  // one of the two, which leaves the owner keys under test as the race left them.
  const recordReads = async () => {
    try {
      return [one.id, two.id].includes(JSON.parse(await s3.getText(`owners/records/${one.sha256}.json`)).id);
    } catch {
      return false;
    }
  };
  const whole = await waitFor(recordReads, 5_000).catch(() => false);
  if (!whole) {
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `owners/records/${one.sha256}.json` }));
    await put(a, 'shared bytes', 'alice');
    await waitFor(recordReads, 10_000);
  }
  const c = await replica('owners/');
  expect((await c.find(one.uri, 'alice'))?.owners.sort()).toEqual(['alice', 'bob']);
  expect(await s3.keys(`owners/owners/${one.sha256}/`)).toHaveLength(2);
});

test("the quota counts every replica's artifacts, and the oldest go first whichever replica stored them", async () => {
  let clock = Date.now();
  const tick = () => (clock += 1000);
  const a = await replica('quota/', () => clock, 30);
  const b = await replica('quota/', () => clock, 30);
  const oldest = await put(a, 'first ten', 'alice');
  tick();
  await put(a, 'second ten', 'alice');
  tick();
  await put(b, 'third ten.', 'bob');
  tick();
  await put(b, 'fourth ten', 'bob');
  // B's index holds only its own two until it reads the bucket again, which a collection does first.
  await b.gc(clock);
  const contents = await s3.keys('quota/content/');
  expect(contents).toHaveLength(3);
  expect(contents).not.toContain(`quota/content/${oldest.sha256}`);
  await a.refresh();
  expect(a.totalBytes).toBeLessThanOrEqual(30);
  expect(a.get(oldest.id)).toBeUndefined();
});
