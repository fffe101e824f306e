import { mkdir, open, readFile, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { Logger } from '../logger.js';
import { atomicWrite, describeFsError, unwritable } from './atomic-write.js';
import { ContentGone, type ArtifactBackend, type Content } from './backend.js';
import { prepareDirectory } from './directory.js';
import { fileSize, loadRecords, pathForId, serializeRecord } from './metadata.js';
import { ArtifactStoreError, type ArtifactRecord } from './types.js';

/**
 * `artifacts.backend: local` (the default): each artifact a file under `dir` named by its id, its record in
 * `.meta/<sha256>.json`, payloads written piece by piece in `.tmp` and renamed into place.
 */
export class LocalBackend implements ArtifactBackend {
  readonly location: string;
  readonly tmpDir: string;
  readonly shared = false;
  private readonly metaDir: string;

  constructor(
    dir: string,
    private readonly log: Logger,
  ) {
    this.location = resolve(dir);
    this.metaDir = join(this.location, '.meta');
    this.tmpDir = join(this.location, '.tmp');
  }

  async open(): Promise<ArtifactRecord[]> {
    await prepareDirectory(this.location, this.metaDir, this.tmpDir);
    return loadRecords(this.location, this.metaDir, this.log);
  }

  pathFor(id: string): string {
    const path = pathForId(this.location, id);
    if (!path) throw new ArtifactStoreError('unwritable', `cannot derive a safe file name for ${JSON.stringify(id)}`);
    return path;
  }

  contentSize(record: ArtifactRecord): Promise<number | undefined> {
    return fileSize(record.path);
  }

  async writeContent(record: ArtifactRecord, content: Content): Promise<void> {
    const { path } = record;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch((err: unknown) => {
      throw unwritable(dirname(path), err);
    });
    await rename(content.file, path).catch((err: unknown) => Promise.reject(unwritable(path, err)));
  }

  async readBytes(record: ArtifactRecord, start: number, end: number): Promise<Buffer> {
    const handle = await openContent(record);
    try {
      const buf = Buffer.alloc(Math.max(0, end - start));
      const { bytesRead } = await handle.read(buf, 0, buf.length, start);
      return bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
    } catch (err) {
      throw new ArtifactStoreError('not-found', `cannot read artifact (${describeFsError(err)})`);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  async readContent(record: ArtifactRecord, start: number, end: number): Promise<Readable> {
    const handle = await openContent(record);
    if (end <= start) {
      await handle.close().catch(() => undefined);
      return Readable.from([]);
    }
    return handle.createReadStream({ start, end: end - 1, autoClose: true });
  }

  async deleteContent(record: ArtifactRecord): Promise<'deleted' | 'absent'> {
    try {
      await unlink(record.path);
      return 'deleted';
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
      throw err;
    }
  }

  writeRecord(record: ArtifactRecord): Promise<void> {
    return atomicWrite(this.tmpDir, this.metaPath(record.sha256), serializeRecord(record));
  }

  async deleteRecord(record: ArtifactRecord): Promise<void> {
    await rm(this.metaPath(record.sha256), { force: true }).catch(() => undefined);
  }

  writeSidecar(sha256: string, text: string): Promise<void> {
    return atomicWrite(this.tmpDir, this.sidecarPath(sha256), text);
  }

  readSidecar(sha256: string): Promise<string> {
    return readFile(this.sidecarPath(sha256), 'utf8');
  }

  async deleteSidecar(sha256: string): Promise<void> {
    await rm(this.sidecarPath(sha256), { force: true }).catch(() => undefined);
  }

  private sidecarPath(sha256: string): string {
    return join(this.metaDir, `${sha256}.literal`);
  }

  private metaPath(sha256: string): string {
    return join(this.metaDir, `${sha256}.json`);
  }
}

/** An artifact's file, open for reading; ContentGone when it was deleted. */
async function openContent(record: ArtifactRecord): Promise<Awaited<ReturnType<typeof open>>> {
  try {
    return await open(record.path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ContentGone('artifact file was deleted');
    throw new ArtifactStoreError('not-found', `cannot open artifact (${describeFsError(err)})`);
  }
}
