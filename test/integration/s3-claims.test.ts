// The garbage collectors' claims (src/artifacts/s3-claims.ts) against s3rver: which collector may remove an expired
// artifact when replicas collect at once. s3rver writes an object in place (truncate, then write), so a claim read
// while another collector writes it is empty for a moment: these tests put such a claim in the bucket themselves.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { GcClaims } from '../../src/artifacts/s3-claims.js';
import { waitFor } from '../helpers/fixtures.js';
import { S3_KEY, S3_SECRET, startRelay, startS3, type S3Relay, type S3Server } from '../helpers/s3.js';

// Long enough that the test empties a claim before the collector reads it back, also on a loaded machine.
const SETTLE_MS = 500;
let s3: S3Server;
const closing: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  s3 = await startS3('claims-test');
});

afterAll(async () => {
  for (const close of closing.reverse()) await close();
  await s3.stop();
});

/** A collector's claims over the bucket, its requests seen by a relay. */
async function collector(prefix: string): Promise<{ claims: GcClaims; relay: S3Relay }> {
  const relay = await startRelay(s3.endpoint);
  const client = new S3Client({
    endpoint: relay.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_KEY, secretAccessKey: S3_SECRET },
  });
  closing.push(
    () => relay.close(),
    () => client.destroy(),
  );
  return { claims: new GcClaims(client, s3.bucket, prefix, SETTLE_MS), relay };
}

const sha = () => randomBytes(32).toString('hex');
const otherToken = () => randomBytes(12).toString('hex');
const TOKEN = /^[0-9a-f]{24}$/;
/** The token a claim holds once its write is in. */
const written = (key: string): Promise<string> =>
  waitFor(
    async () => {
      const text = await s3.getText(key).catch(() => '');
      return TOKEN.test(text) ? text : '';
    },
    5000,
    5,
    `a token in ${key}`,
  );
const puts = (relay: S3Relay) => relay.requests.filter((r) => r.startsWith('PUT ')).length;

test("another collector's claim holds this one back; one that names nobody (left half-written) does not", async () => {
  const { claims } = await collector('a/');
  const [held, empty, cut] = [sha(), sha(), sha()];
  await s3.putText(`a/claims/${held}`, otherToken());
  await s3.putText(`a/claims/${empty}`, '');
  await s3.putText(`a/claims/${cut}`, otherToken().slice(0, 10));
  const won = await claims.claim([held, empty, cut]);
  expect([...won].sort()).toEqual([empty, cut].sort());
  await claims.release([...won]);
  expect(await s3.keys('a/claims/')).toEqual([`a/claims/${held}`]);
});

test('a claim read back half-written is read again, not written again: the write under way decides', async () => {
  const { claims, relay } = await collector('b/');
  // Two contents: the write under way when the collector reads back is another collector's for `theirs`, and its
  // own, slower than the settle, for `mine` (s3rver has truncated each object; the write ends after the settle).
  const [theirs, mine] = [sha(), sha()];
  const claiming = claims.claim([theirs, mine]);
  const ownToken = await written(`b/claims/${mine}`);
  await written(`b/claims/${theirs}`);
  await s3.putText(`b/claims/${theirs}`, '');
  await s3.putText(`b/claims/${mine}`, '');
  setTimeout(() => {
    void s3.putText(`b/claims/${theirs}`, otherToken());
    void s3.putText(`b/claims/${mine}`, ownToken);
  }, SETTLE_MS * 1.5);
  expect(await claiming).toEqual(new Set([mine]));
  expect(puts(relay)).toBe(2);
});

test('of two collectors claiming the same contents at once, each content goes to exactly one', async () => {
  const [one, two] = [await collector('c/'), await collector('c/')];
  const contents = Array.from({ length: 40 }, sha);
  const [a, b] = await Promise.all([one.claims.claim(contents), two.claims.claim(contents)]);
  expect([...a].filter((s) => b.has(s))).toEqual([]);
  expect(a.size + b.size).toBe(contents.length);
});
