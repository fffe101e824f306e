import { mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { Logger } from '../logger.js';
import { atomicWrite, describeFsError, unwritable } from './atomic-write.js';
import { hashBytes } from './hash.js';
import { defaultArtifactDir, prepareDirectory } from './directory.js';
import { KeyedLock } from './key-lock.js';
import { fileSize, loadRecords, newRecord, serializeRecord } from './metadata.js';
import { RecordIndex, activity, snapshot } from './record-index.js';
import { resolveMimeType } from './mime.js';
import { writePayload } from './piece-file.js';
import { rebuildLiteral, sameForm, type LiteralForm, type LiteralKind } from './literals.js';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  ArtifactStoreError,
  type ArtifactInput,
  type ArtifactRecord,
  type ByteRange,
  type GcResult,
  type ListFilter,
  type StoreOptions,
} from './types.js';

/** What is stored: bytes in memory, or a file already written to the store's tmp directory. */
type Content = { bytes: Buffer } | { file: string };

export type { ByteRange, GcResult, ListFilter };

const notFound = (id: string, why = 'no such artifact'): ArtifactStoreError =>
  new ArtifactStoreError('not-found', `${why}: ${JSON.stringify(String(id).slice(0, 200))}`);

/** Content-addressed files on disk plus one JSON metadata record each, indexed in memory. */
export class ArtifactStore {
  readonly dir: string;
  private readonly metaDir: string;
  private readonly tmpDir: string;
  private readonly now: () => number;
  private readonly index = new RecordIndex();
  /** Per sha256: puts, owner updates and removals of the same content never interleave. */
  private readonly lock = new KeyedLock();
  private gcQueue: Promise<unknown> = Promise.resolve();
  /** Told after a collection that removed something (for metrics). */
  onCollected?: (result: GcResult) => void;
  private ready = false;
  private opening?: Promise<void>;

  constructor(
    private readonly options: StoreOptions,
    private readonly log: Logger,
  ) {
    this.dir = resolve(options.dir);
    this.metaDir = join(this.dir, '.meta');
    this.tmpDir = join(this.dir, '.tmp');
    this.now = options.now ?? Date.now;
  }

  static defaultDir(): string {
    return defaultArtifactDir();
  }

  /** Creates and checks the directory, then loads the records of earlier runs. */
  async init(): Promise<void> {
    await prepareDirectory(this.dir, this.metaDir, this.tmpDir);
    for (const record of await loadRecords(this.dir, this.metaDir, this.log)) {
      if (!this.index.hasId(record.id)) this.index.add(record);
    }
    this.ready = true;
    this.log.debug({ dir: this.dir, artifacts: this.index.size, bytes: this.totalBytes }, 'artifact store ready');
  }

  get totalBytes(): number {
    return this.index.totalBytes;
  }

  async put(input: ArtifactInput): Promise<ArtifactRecord> {
    // A store that could not open at startup tries again: the disk may have been fixed since.
    if (!this.ready) await (this.opening ??= this.init().finally(() => (this.opening = undefined)));
    if ('pieces' in input.data) {
      const file = await writePayload(this.tmpDir, input, input.data.pieces, this.options.maxArtifactBytes);
      return this.commit({ ...input, facts: file.facts }, { file: file.path }, file.sha256, file.size, file.mimeType);
    }
    const { bytes, sha256 } = hashBytes(input.data, this.options.maxArtifactBytes);
    const mimeType = await resolveMimeType(input.mimeType, bytes);
    return this.commit(input, { bytes }, sha256, bytes.length, mimeType);
  }

  private async commit(
    input: ArtifactInput,
    content: Content,
    sha256: string,
    size: number,
    mimeType: string,
  ): Promise<ArtifactRecord> {
    let record: ArtifactRecord;
    try {
      record = await this.lock.run(sha256, () => this.store(input, content, sha256, size, mimeType));
    } catch (err) {
      this.log.warn({ err, server: input.server, tool: input.tool }, 'could not store artifact');
      throw err;
    } finally {
      // Renamed into place, kept as a duplicate, or left by a failure: the temporary name goes.
      if ('file' in content) await rm(content.file, { force: true }).catch(() => undefined);
    }
    const quota = this.options.quotaBytes;
    if (quota > 0 && this.totalBytes > quota) {
      await this.collect(this.now(), new Set([sha256]), false).catch((err: unknown) => {
        this.log.warn({ err }, 'artifact garbage collection failed');
      });
    }
    return snapshot(record);
  }

  private async store(
    input: ArtifactInput,
    content: Content,
    sha256: string,
    size: number,
    mimeType: string,
  ): Promise<ArtifactRecord> {
    const existing = this.index.byContent(sha256);
    if (existing && (await fileSize(existing.path)) === existing.size) return this.reuse(existing, input.owner);
    // The file was deleted or altered by hand: write it afresh, keeping who had it.
    if (existing) this.index.delete(existing);
    const owners = [...new Set([...(existing?.owners ?? []), ...(input.owner ? [input.owner] : [])])];
    const record = newRecord(this.dir, input, { sha256, size, mimeType, owners, now: this.now() }, (id) =>
      this.index.hasId(id),
    );
    const { path } = record;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch((err: unknown) => {
      throw unwritable(dirname(path), err);
    });
    // Metadata first: a crash in between leaves metadata without a file, which init drops, rather
    // than a file nothing accounts for.
    await atomicWrite(this.tmpDir, this.metaPath(sha256), serializeRecord(record));
    try {
      if ('bytes' in content) await atomicWrite(this.tmpDir, path, content.bytes);
      else await rename(content.file, path).catch((err: unknown) => Promise.reject(unwritable(path, err)));
    } catch (err) {
      await rm(this.metaPath(sha256), { force: true }).catch(() => undefined);
      throw err;
    }
    this.index.add(record);
    return record;
  }

  /**
   * Identical bytes again: no second file, but the new owner and the fresh time are persisted, so the
   * artifact just handed out is neither hidden from its owner after a restart nor collected as old.
   */
  private async reuse(record: ArtifactRecord, owner: string | undefined): Promise<ArtifactRecord> {
    if (owner !== undefined && !record.owners.includes(owner)) record.owners.push(owner);
    record.lastStored = new Date(this.now()).toISOString();
    // The file is there and usable; failing to update metadata only matters after a restart.
    await atomicWrite(this.tmpDir, this.metaPath(record.sha256), serializeRecord(record)).catch((err: unknown) => {
      this.log.warn({ err, id: record.id }, 'could not update artifact metadata');
    });
    return record;
  }

  /**
   * Records how the artifact's payload was written where it was replaced in place, and answers its
   * number among the forms of that kind (1 for the first), which tells a replacement apart from another
   * of the same bytes written differently. A literal given as text is kept whole in a sidecar file.
   */
  async addLiteral(idOrUri: string, kind: LiteralKind, given: LiteralForm | { text: string }): Promise<number> {
    const found = this.index.lookup(idOrUri);
    if (!found) throw notFound(idOrUri);
    return this.lock.run(found.sha256, async () => {
      const record = this.index.lookup(idOrUri);
      if (!record) throw notFound(idOrUri);
      let form: LiteralForm;
      if ('text' in given) {
        const sidecar = createHash('sha256').update(given.text, 'utf8').digest('hex');
        await atomicWrite(this.tmpDir, this.sidecarPath(sidecar), given.text);
        form = { sidecar };
      } else {
        form = given;
      }
      const forms = (record.literals ??= {})[kind] ?? [];
      const known = forms.findIndex((f) => sameForm(f, form));
      if (known !== -1) return known + 1;
      record.literals[kind] = [...forms, form];
      await atomicWrite(this.tmpDir, this.metaPath(record.sha256), serializeRecord(record));
      return forms.length + 1;
    });
  }

  /** The literal the artifact's payload was written as (number `n` of that kind), or undefined if none is known. */
  async literal(record: ArtifactRecord, kind: LiteralKind, n: number): Promise<string | undefined> {
    const form = this.index.lookup(record.id)?.literals?.[kind]?.[n - 1];
    if (!form) return undefined;
    if ('sidecar' in form) return readFile(this.sidecarPath(form.sidecar), 'utf8');
    return rebuildLiteral(form, await this.read(record.id));
  }

  get(idOrUri: string): ArtifactRecord | undefined {
    const record = this.index.lookup(idOrUri);
    return record && snapshot(record);
  }

  bySha(sha256: string): ArtifactRecord | undefined {
    const record = this.index.byContent(sha256);
    return record && snapshot(record);
  }

  /** Newest first: by when the bytes were last stored. */
  list(filter: ListFilter = {}): ArtifactRecord[] {
    return this.index.list(filter).map(snapshot);
  }

  async read(idOrUri: string, range?: ByteRange): Promise<Buffer> {
    const { record, handle, start, end } = await this.openRange(idOrUri, range);
    try {
      const buf = Buffer.alloc(end - start);
      const { bytesRead } = await handle.read(buf, 0, buf.length, start);
      return bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
    } catch (err) {
      throw notFound(record.id, `cannot read artifact (${describeFsError(err)})`);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** Opens before returning, so a missing file is a not-found error here rather than a stream error later. */
  async createReadStream(idOrUri: string, range?: ByteRange): Promise<Readable> {
    const { handle, start, end } = await this.openRange(idOrUri, range);
    if (end <= start) {
      await handle.close().catch(() => undefined);
      return Readable.from([]);
    }
    return handle.createReadStream({ start, end: end - 1, autoClose: true });
  }

  private async openRange(idOrUri: string, range: ByteRange | undefined) {
    const record = this.index.lookup(idOrUri);
    if (!record) throw notFound(idOrUri);
    const start = range?.start ?? 0;
    const end = range?.end;
    if (
      !Number.isSafeInteger(start) ||
      start < 0 ||
      (end !== undefined && (!Number.isSafeInteger(end) || end < start))
    ) {
      throw new RangeError(`invalid byte range ${JSON.stringify(range)}`);
    }
    try {
      const handle = await open(record.path, 'r');
      return { record, handle, start: Math.min(start, record.size), end: Math.min(end ?? record.size, record.size) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        await this.lock.run(record.sha256, async () => this.drop(record));
        throw notFound(record.id, 'artifact file was deleted');
      }
      throw notFound(record.id, `cannot open artifact (${describeFsError(err)})`);
    }
  }

  /** Removes expired artifacts, then the oldest until the quota holds. Also forgets files deleted by hand. */
  async gc(now = this.now()): Promise<GcResult> {
    return this.collect(now, new Set(), true);
  }

  private collect(now: number, keep: ReadonlySet<string>, verify: boolean): Promise<GcResult> {
    const run = this.gcQueue.then(async () => {
      const result: GcResult = { removed: 0, freedBytes: 0, remaining: 0, remainingBytes: 0, forgotten: 0 };
      if (verify) {
        for (const r of this.index.all()) {
          if ((await fileSize(r.path)) === undefined && (await this.remove(r, () => true)) !== undefined)
            result.forgotten++;
        }
      }
      const ttl = this.options.ttlMs;
      const quota = this.options.quotaBytes;
      const expired = (r: ArtifactRecord) => ttl > 0 && now - activity(r) > ttl;
      const oldestFirst = this.index
        .all()
        .filter((r) => !keep.has(r.sha256))
        .sort((a, b) => activity(a) - activity(b));
      for (const r of oldestFirst) {
        const over = () => quota > 0 && this.totalBytes > quota;
        // A record being put again right now is about to be handed to a client.
        if ((!expired(r) && !over()) || this.lock.busy(r.sha256)) continue;
        const freed = await this.remove(r, () => expired(r) || over());
        if (freed !== undefined) {
          result.removed++;
          result.freedBytes += freed;
        }
      }
      const final = { ...result, remaining: this.index.size, remainingBytes: this.totalBytes };
      if (final.removed > 0) this.onCollected?.(final);
      return final;
    });
    this.gcQueue = run.catch(() => undefined);
    return run;
  }

  /** Deletes file and metadata if `still()` holds once the lock is held; the bytes freed, or undefined if kept. */
  private remove(record: ArtifactRecord, still: () => boolean): Promise<number | undefined> {
    return this.lock.run(record.sha256, async () => {
      if (!this.index.isCurrent(record) || !still()) return undefined;
      let freed = record.size;
      try {
        await unlink(record.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
          this.log.warn({ err, path: record.path }, 'could not remove artifact');
          return undefined;
        }
        freed = 0;
      }
      // The server folder stays even when empty: removing it could race a put that just created it.
      await this.drop(record);
      return freed;
    });
  }

  private async drop(record: ArtifactRecord): Promise<void> {
    if (!this.index.isCurrent(record)) return;
    await rm(this.metaPath(record.sha256), { force: true }).catch(() => undefined);
    for (const forms of Object.values(record.literals ?? {})) {
      for (const form of forms)
        if ('sidecar' in form) await rm(this.sidecarPath(form.sidecar), { force: true }).catch(() => undefined);
    }
    this.index.delete(record);
  }

  private sidecarPath(sha256: string): string {
    return join(this.metaDir, `${sha256}.literal`);
  }

  private metaPath(sha256: string): string {
    return join(this.metaDir, `${sha256}.json`);
  }
}
