import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { describeFsError } from './atomic-write.js';
import { segment } from './names.js';
import { ArtifactStoreError } from './types.js';

// Another proxy may share the directory; its temp files are only stale once nobody could still be writing them.
const STALE_TMP_MS = 60 * 60 * 1000;

/** `<tmp>/mcp-offload-<user>`: per user, so people sharing a machine never see each other's artifacts. */
export function defaultArtifactDir(): string {
  let user = '';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (common in containers running as an arbitrary uid).
  }
  return join(os.tmpdir(), `mcp-offload-${segment(user || String(process.getuid?.() ?? 'user'))}`);
}

/**
 * Creates the store's directories and proves a put can succeed, so a read-only or foreign directory
 * fails at startup with one clear message rather than on every call.
 */
export async function prepareDirectory(dir: string, metaDir: string, tmpDir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (await inWorldWritableDir(dir)) await checkPrivate(dir);
    await mkdir(metaDir, { recursive: true, mode: 0o700 });
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    await probe([tmpDir, metaDir, dir]);
  } catch (err) {
    throw new ArtifactStoreError('unwritable', `artifact directory ${dir} is not writable: ${describeFsError(err)}`);
  }
  await cleanTmp(tmpDir);
}

async function inWorldWritableDir(dir: string): Promise<boolean> {
  if (process.platform === 'win32') return false;
  return ((await stat(dirname(dir))).mode & 0o002) !== 0;
}

/**
 * In a world-writable parent like /tmp, where the default directory lives under a predictable name,
 * another user could create it first (or plant a symlink) to read or swap artifacts. There it must be
 * a real directory, ours, and private. Elsewhere a shared or symlinked directory is the user's choice.
 */
async function checkPrivate(dir: string): Promise<void> {
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new Error('it is a symbolic link or not a directory, in a world-writable parent');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new Error(`it belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/** Creates a file in the first directory and renames it through the others: the moves a put makes. */
async function probe(dirs: string[]): Promise<void> {
  const name = `.probe-${process.pid}-${randomBytes(6).toString('hex')}`;
  const paths = dirs.map((d) => join(d, name));
  await writeFile(paths[0]!, '', { flag: 'wx', mode: 0o600 });
  try {
    for (let i = 1; i < paths.length; i++) await rename(paths[i - 1]!, paths[i]!);
  } finally {
    await Promise.all(paths.map((p) => rm(p, { force: true }).catch(() => undefined)));
  }
}

async function cleanTmp(tmpDir: string): Promise<void> {
  const cutoff = Date.now() - STALE_TMP_MS;
  for (const name of await readdir(tmpDir).catch(() => [] as string[])) {
    const path = join(tmpDir, name);
    const st = await stat(path).catch(() => undefined);
    if (st && st.mtimeMs < cutoff) await rm(path, { force: true, recursive: true }).catch(() => undefined);
  }
}
