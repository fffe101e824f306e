import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { inParallel } from './in-parallel.js';
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
/** How often a claim read back half-written is read, `settleMs` apart, before it is left to the next collection. */
const CLAIM_READS = 4;
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
    const pending = (
      await inParallel(sha256s, CONCURRENCY, async (sha) => ((await this.heldByOther(sha)) ? undefined : sha))
    ).filter((sha): sha is string => sha !== undefined);
    await inParallel(pending, CONCURRENCY, (sha) => this.write(sha));
    await sleep(this.settleMs);
    const won = new Set<string>();
    await inParallel(pending, CONCURRENCY, async (sha) => {
      if ((await this.settledHolder(sha))?.token === this.token) won.add(sha);
    });
    return won;
  }

  /**
   * The claim once no write to it is under way. Services that write objects in place (as s3rver does) show one being
   * written half-written for a moment, naming nobody: it is read again, not written again. Writing again started a
   * write that the other collector read half-written in turn, and two collectors could keep each other from ever
   * settling, both losing the claim (the suspected cause of replicas-scale's rare "removed 214 of 250").
   */
  private async settledHolder(sha: string): Promise<{ token: string; since: number } | undefined> {
    for (let read = 1; ; read++) {
      const holder = await this.holder(sha);
      if (!holder || TOKEN.test(holder.token) || read >= CLAIM_READS) return holder;
      await sleep(this.settleMs);
    }
  }

  private async write(sha: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(sha), Body: this.token }));
  }

  async release(sha256s: string[]): Promise<void> {
    await inParallel(sha256s, CONCURRENCY, async (sha) => {
      if ((await this.holder(sha))?.token === this.token)
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(sha) }));
    });
  }

  /**
   * Whether another collector holds the claim. One that names nobody (left half-written: its writer died, or was read
   * mid-write) holds nobody back: writing over it is as safe as over any claim, since the last write wins and every
   * claimant reads it back before it collects; kept, it would stop every collection for the lease.
   */
  private async heldByOther(sha: string): Promise<boolean> {
    const held = await this.holder(sha);
    return (
      held !== undefined &&
      TOKEN.test(held.token) &&
      held.token !== this.token &&
      Date.now() - held.since < CLAIM_LEASE_MS
    );
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
