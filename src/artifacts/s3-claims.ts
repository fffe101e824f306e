import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isMissing } from './s3-client.js';

/**
 * Longer than any request takes. Claims are written, then read back after this pause: of collectors
 * that wrote a claim at about the same time, the last write wins and every one of them reads the same
 * winner. (S3-compatible services do not all offer conditional writes, which would make this one call.)
 */
export const CLAIM_SETTLE_MS = 1500;
/** A claim older than this belongs to a collector that died; it no longer holds anyone back. */
const CLAIM_LEASE_MS = 10 * 60 * 1000;
const CONCURRENCY = 8;
/** How often a claim read back half-written is written and read again before it is left to the next collection. */
const CLAIM_ROUNDS = 3;
/** What a claim holds: a token of randomBytes(12). */
const TOKEN = /^[0-9a-f]{24}$/;

/**
 * Which of some contents this process may collect: two replicas collecting at the same time never both
 * delete (and count) the same artifact. A claim is `<prefix>claims/<sha256>` holding a random token.
 */
export class GcClaims {
  private readonly token = randomBytes(12).toString('hex');

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
    private readonly settleMs = CLAIM_SETTLE_MS,
  ) {}

  async claim(sha256s: string[]): Promise<Set<string>> {
    if (sha256s.length === 0) return new Set();
    let pending = (await inBatches(sha256s, async (sha) => ((await this.heldByOther(sha)) ? undefined : sha))).filter(
      (sha): sha is string => sha !== undefined,
    );
    const won = new Set<string>();
    for (let round = 0; pending.length > 0 && round < CLAIM_ROUNDS; round++) {
      await inBatches(pending, (sha) => this.write(sha));
      await new Promise((resolve) => setTimeout(resolve, this.settleMs));
      const unsettled: string[] = [];
      await inBatches(pending, async (sha) => {
        const holder = await this.holder(sha);
        if (holder?.token === this.token) won.add(sha);
        // Read while another collector's write was under way (services that write objects in place, as s3rver
        // does, show a half-written one for a moment): it names nobody, so both would lose it. Claimed again.
        else if (holder && !TOKEN.test(holder.token)) unsettled.push(sha);
      });
      pending = unsettled;
    }
    return won;
  }

  private async write(sha: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(sha), Body: this.token }));
  }

  async release(sha256s: string[]): Promise<void> {
    await inBatches(sha256s, async (sha) => {
      if ((await this.holder(sha))?.token === this.token)
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(sha) }));
    });
  }

  private async heldByOther(sha: string): Promise<boolean> {
    const held = await this.holder(sha);
    return held !== undefined && held.token !== this.token && Date.now() - held.since < CLAIM_LEASE_MS;
  }

  private async holder(sha: string): Promise<{ token: string; since: number } | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(sha) }));
      return { token: (await out.Body?.transformToString()) ?? '', since: out.LastModified?.getTime() ?? 0 };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  private key(sha: string): string {
    return `${this.prefix}claims/${sha}`;
  }
}

async function inBatches<T, R>(items: T[], task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += CONCURRENCY)
    out.push(...(await Promise.all(items.slice(i, i + CONCURRENCY).map(task))));
  return out;
}
