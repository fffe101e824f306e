import { createReadStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Logger } from '../logger.js';
import { ContentGone, type ArtifactBackend, type Content } from './backend.js';
import { prepareDirectory } from './directory.js';
import { parseRecord, serializeRecord } from './metadata.js';
import { inParallel } from './in-parallel.js';
import { goesBy } from './record-index.js';
import { GcClaims } from './s3-claims.js';
import { createS3Client, describeBucket, describeS3Error, isMissing } from './s3-client.js';
import { ArtifactStoreError, type ArtifactRecord, type S3StoreOptions } from './types.js';

const RECORD_KEY = /records\/([0-9a-f]{64})\.json$/;
const OWNER_KEY = /owners\/([0-9a-f]{64})\/([A-Za-z0-9_-]+)$/;
/** The hash in an id (`tool_<12 or 64 hex>.ext`): the records to look at for an id this replica never saw. */
const ID_HASH = /_([0-9a-f]{64}|[0-9a-f]{12})\.[^/]*$/;
const FETCH_CONCURRENCY = 16;
/** Longer than any upload takes: bytes without a record younger than this may be a put in progress. */
const ORPHAN_AGE_MS = 60 * 60 * 1000;
// Not '': the SDK takes an empty string for a stream of unknown length and warns on every put.
const EMPTY = new Uint8Array(0);

/**
 * `artifacts.backend: s3`. Under the prefix, keys derive from the content's sha256, so replicas sharing
 * the bucket store identical bytes once and find each other's artifacts:
 *   content/<sha256>              the bytes (multipart upload, streamed from the tmp file)
 *   records/<sha256>.json         the record (id, name, type, facts, times), as on disk
 *   owners/<sha256>/<owner>       one empty object per owner (base64url), so owners added by
 *                                 replicas at the same time are never lost to a rewrite of the record
 *   literals/<sha256>             how a payload was written, when kept whole (see literals.ts)
 *   claims/<sha256>               a collector's claim (s3-claims.ts)
 */
export class S3Backend implements ArtifactBackend {
  readonly location: string;
  readonly tmpDir: string;
  readonly shared = true;
  /** The local directory whose `.tmp` holds payloads on their way up. */
  private readonly root: string;
  private readonly client: S3Client;
  /** Signs presigned URLs: the host is part of the signature, so it must be the one clients use. */
  private readonly presigner: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly claims: GcClaims;
  /** Owner objects known to exist, so a put for a known owner costs no request. */
  private readonly ownersWritten = new Set<string>();
  /** ETag of each record as last read: an unchanged record is not fetched again on refresh. */
  private readonly etags = new Map<string, string>();

  constructor(
    private readonly options: S3StoreOptions,
    dir: string,
    private readonly log: Logger,
  ) {
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.location = `s3://${options.bucket}/${options.prefix}`;
    this.root = resolve(dir);
    this.tmpDir = join(this.root, '.tmp');
    this.client = createS3Client(options, log);
    this.presigner = options.publicEndpoint
      ? createS3Client({ ...options, endpoint: options.publicEndpoint }, log)
      : this.client;
    this.claims = new GcClaims(this.client, this.bucket, this.prefix);
  }

  async open(): Promise<ArtifactRecord[]> {
    // Payloads pass through the tmp directory on their way up: the same checks as a local store's (created
    // 0700, private when under a world-writable parent such as /tmp, writable), and leftovers cleaned.
    await prepareDirectory(this.root, this.tmpDir, this.tmpDir);
    const where = describeBucket(this.options);
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      // Reading is not writing: a put must be able to succeed, or each payload would fail on its own.
      const probe = `${this.prefix}.probe-${process.pid}-${Date.now()}`;
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: probe, Body: EMPTY }));
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: probe }));
      // The records are read by the store's first refresh, which a replica does not wait for (store.ts init).
      return [];
    } catch (err) {
      throw new ArtifactStoreError('unwritable', `${where} is not usable: ${describeS3Error(err)}`);
    }
  }

  pathFor(_id: string, sha256: string): string {
    return `s3://${this.bucket}/${this.contentKey(sha256)}`;
  }

  async contentSize(record: ArtifactRecord): Promise<number | undefined> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.contentKey(record.sha256) }),
      );
      return head.ContentLength;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw this.failed('look at', record, err);
    }
  }

  async writeContent(record: ArtifactRecord, content: Content): Promise<void> {
    // Multipart from the file: at most partSize × concurrency bytes in memory, whatever the payload's size.
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: this.contentKey(record.sha256),
        Body: createReadStream(content.file),
        ContentType: record.mimeType,
        ContentLength: record.size,
      },
      partSize: this.options.partSizeBytes,
      queueSize: this.options.uploadConcurrency,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      throw this.failed('upload', record, err);
    }
  }

  async readContent(record: ArtifactRecord, start: number, end: number): Promise<Readable> {
    if (end <= start) return Readable.from([]);
    try {
      const out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.contentKey(record.sha256),
          // Asked for the whole object too: an empty Range header is not the same as none on every service.
          ...(start > 0 || end < record.size ? { Range: `bytes=${start}-${end - 1}` } : {}),
        }),
      );
      return out.Body as Readable;
    } catch (err) {
      if (isMissing(err)) throw new ContentGone('artifact bytes are gone from the bucket');
      throw new ArtifactStoreError(
        'unavailable',
        `cannot read artifact from ${describeBucket(this.options)} (${describeS3Error(err)})`,
      );
    }
  }

  async deleteContent(record: ArtifactRecord): Promise<'deleted' | 'absent'> {
    // DELETE answers 204 whether or not there was anything: HEAD says which, for the freed bytes.
    if ((await this.contentSize(record)) === undefined) return 'absent';
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.contentKey(record.sha256) }));
    return 'deleted';
  }

  async writeRecord(record: ArtifactRecord): Promise<void> {
    try {
      const out = await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.recordKey(record.sha256),
          Body: serializeRecord(record),
          ContentType: 'application/json',
        }),
      );
      if (out.ETag) this.etags.set(record.sha256, out.ETag);
      for (const owner of record.owners) {
        const key = this.ownerKey(record.sha256, owner);
        if (this.ownersWritten.has(key)) continue;
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: EMPTY }));
        this.ownersWritten.add(key);
      }
    } catch (err) {
      throw this.failed('record', record, err);
    }
  }

  async deleteRecord(record: ArtifactRecord): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.recordKey(record.sha256) }));
    this.etags.delete(record.sha256);
    for (const key of await this.keys(`${this.prefix}owners/${record.sha256}/`)) {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key.key }));
      this.ownersWritten.delete(key.key);
    }
  }

  async writeSidecar(sha256: string, text: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.literalKey(sha256), Body: text }));
  }

  async readSidecar(sha256: string): Promise<string> {
    const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.literalKey(sha256) }));
    return (await out.Body?.transformToString('utf8')) ?? '';
  }

  async deleteSidecar(sha256: string): Promise<void> {
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.literalKey(sha256) }))
      .catch(() => undefined);
  }

  async fetchRecord(sha256: string): Promise<ArtifactRecord | undefined> {
    let record: ArtifactRecord | undefined;
    let owners: string[];
    try {
      [record, owners] = await Promise.all([this.readRecord(sha256), this.ownersOf(sha256)]);
    } catch (err) {
      throw new ArtifactStoreError(
        'unwritable',
        `cannot read the record of ${sha256.slice(0, 12)} in ${describeBucket(this.options)}: ${describeS3Error(err)}`,
      );
    }
    if (!record) return undefined;
    record.owners = [...new Set([...record.owners, ...owners])];
    return record;
  }

  async findId(id: string): Promise<ArtifactRecord | undefined> {
    const hash = ID_HASH.exec(id)?.[1];
    if (!hash) return undefined;
    for (const { key } of await this.keys(`${this.prefix}records/${hash}`)) {
      const sha = RECORD_KEY.exec(key)?.[1];
      const record = sha ? await this.fetchRecord(sha) : undefined;
      if (record && goesBy(record, id)) return record;
    }
    return undefined;
  }

  async listRecords(known: ReadonlyMap<string, ArtifactRecord>): Promise<ArtifactRecord[]> {
    const [recordKeys, ownerKeys] = await Promise.all([
      this.keys(`${this.prefix}records/`),
      this.keys(`${this.prefix}owners/`),
    ]);
    const owners = new Map<string, string[]>();
    for (const { key } of ownerKeys) {
      const m = OWNER_KEY.exec(key);
      if (!m) continue;
      const owner = Buffer.from(m[2]!, 'base64url').toString('utf8');
      owners.set(m[1]!, [...(owners.get(m[1]!) ?? []), owner]);
    }
    const records: ArtifactRecord[] = [];
    const load = async ({ key, etag }: { key: string; etag?: string }): Promise<void> => {
      const sha = RECORD_KEY.exec(key)?.[1];
      if (!sha) return;
      const cached = known.get(sha);
      const unchanged = cached && etag !== undefined && this.etags.get(sha) === etag ? cached : undefined;
      const record = unchanged ?? (await this.readRecord(sha));
      if (!record) return;
      const merged = [...new Set([...record.owners, ...(owners.get(sha) ?? [])])];
      // The index's own record when nothing about it changed: the store then has nothing to replace (store.ts reload),
      // where a copy of each of 20,000 records every 30 s was put in the index in place of the same.
      if (unchanged && merged.length === unchanged.owners.length) records.push(unchanged);
      else records.push({ ...record, owners: merged });
    };
    await inParallel(recordKeys, FETCH_CONCURRENCY, load);
    return records;
  }

  async listContent(): Promise<Set<string>> {
    const prefix = `${this.prefix}content/`;
    return new Set((await this.keys(prefix)).map(({ key }) => key.slice(prefix.length)));
  }

  /**
   * Bytes no record names: left by a replica that died between its upload and its record. Only those older
   * than any put takes, since a put uploads before it writes the record. Answers how many went.
   */
  async sweep(): Promise<number> {
    const [content, records] = await Promise.all([
      this.keys(`${this.prefix}content/`),
      this.keys(`${this.prefix}records/`),
    ]);
    const named = new Set(records.map(({ key }) => RECORD_KEY.exec(key)?.[1]));
    const cutoff = Date.now() - ORPHAN_AGE_MS;
    let swept = 0;
    for (const { key, modified } of content) {
      const sha = key.slice(`${this.prefix}content/`.length);
      if (named.has(sha) || modified === undefined || modified > cutoff) continue;
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
      swept++;
    }
    return swept;
  }

  claim(sha256s: string[]): Promise<Set<string>> {
    return this.claims.claim(sha256s);
  }

  release(sha256s: string[]): Promise<void> {
    return this.claims.release(sha256s);
  }

  presign(record: ArtifactRecord, seconds: number, disposition?: string): Promise<string> {
    return getSignedUrl(
      this.presigner,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.contentKey(record.sha256),
        ResponseContentType: record.mimeType,
        ...(disposition ? { ResponseContentDisposition: disposition } : {}),
      }),
      { expiresIn: seconds },
    );
  }

  close(): void {
    this.client.destroy();
    if (this.presigner !== this.client) this.presigner.destroy();
  }

  /** The record as stored, checked like a file on disk; undefined when there is none or it is invalid. */
  private async readRecord(sha256: string): Promise<ArtifactRecord | undefined> {
    let text: string;
    let etag: string | undefined;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.recordKey(sha256) }));
      text = (await out.Body?.transformToString('utf8')) ?? '';
      etag = out.ETag;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    // Any absolute directory does (the id is checked against it): the path is the object's URI, set below.
    const parsed = parseRecord('/bucket', sha256, text);
    if (typeof parsed === 'string') {
      this.log.warn({ key: this.recordKey(sha256), problem: parsed }, 'ignoring invalid artifact metadata');
      return undefined;
    }
    if (etag) this.etags.set(sha256, etag);
    return { ...parsed, path: this.pathFor(parsed.id, sha256) };
  }

  private async ownersOf(sha256: string): Promise<string[]> {
    const out: string[] = [];
    for (const { key } of await this.keys(`${this.prefix}owners/${sha256}/`)) {
      const m = OWNER_KEY.exec(key);
      if (m) {
        out.push(Buffer.from(m[2]!, 'base64url').toString('utf8'));
        this.ownersWritten.add(key);
      }
    }
    return out;
  }

  private async keys(prefix: string): Promise<{ key: string; etag?: string; modified?: number }[]> {
    const out: { key: string; etag?: string; modified?: number }[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const item of page.Contents ?? [])
        if (item.Key) out.push({ key: item.Key, etag: item.ETag, modified: item.LastModified?.getTime() });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  private failed(what: string, record: ArtifactRecord, err: unknown): ArtifactStoreError {
    if (err instanceof ArtifactStoreError) return err;
    return new ArtifactStoreError(
      'unwritable',
      `cannot ${what} ${record.id} in ${describeBucket(this.options)}: ${describeS3Error(err)}`,
    );
  }

  private contentKey(sha256: string): string {
    return `${this.prefix}content/${sha256}`;
  }

  private recordKey(sha256: string): string {
    return `${this.prefix}records/${sha256}.json`;
  }

  private ownerKey(sha256: string, owner: string): string {
    return `${this.prefix}owners/${sha256}/${Buffer.from(owner, 'utf8').toString('base64url')}`;
  }

  private literalKey(sha256: string): string {
    return `${this.prefix}literals/${sha256}`;
  }
}
