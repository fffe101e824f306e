import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ArtifactStoreError } from './types.js';

const REASONS: Record<string, string> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'permission denied (read-only file system)',
  ENOTDIR: 'a file is in the way of a directory',
  EEXIST: 'a file is in the way of a directory',
  EISDIR: 'a directory is in the way of a file',
  ENOENT: 'the directory disappeared',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'path too long',
};

/** `disk full (ENOSPC)`: what went wrong in words the person reading the tool result can act on. */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code && REASONS[code]) return `${REASONS[code]} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

export function unwritable(target: string, err: unknown): ArtifactStoreError {
  if (err instanceof ArtifactStoreError) return err;
  return new ArtifactStoreError('unwritable', `cannot write ${target}: ${describeFsError(err)}`);
}

/** A fresh name for a temporary file in `tmpDir`. */
export function tempPath(tmpDir: string): string {
  return join(tmpDir, `${process.pid}-${randomBytes(8).toString('hex')}`);
}

/**
 * Writes `data` to `target` so that `target` is either absent or complete, never partial: the bytes go
 * to a fresh file in `tmpDir` (same file system, so the rename is atomic) which is renamed into place.
 * No fsync: artifacts are a cache, and the cost on large payloads buys nothing a re-run would not.
 */
export async function atomicWrite(tmpDir: string, target: string, data: Uint8Array | string): Promise<void> {
  const tmp = tempPath(tmpDir);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(tmp, 'wx', 0o600);
    await handle.writeFile(data);
    await handle.close();
    handle = undefined;
    await rename(tmp, target);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
    throw unwritable(target, err);
  }
}
