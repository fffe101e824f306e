import { randomBytes } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../logger.js';

/**
 * Long literals past this many bytes go to a file as they arrive (see held-literal.ts); shorter ones stay in memory.
 * Spooling costs a copy through the page cache and back (measured: a tenth more time to read and store a 4 to 16 MiB
 * image), which pays for itself only where the memory it saves counts next to the ~67 MiB of an idle proxy.
 */
export const SPOOL_MIN_BYTES = 4 * 1024 * 1024;

interface SpoolSettings {
  /** Where spool files are made: the artifact store's temporary directory, or one of our own in the OS's. */
  dir?: string;
  log?: Logger;
  minBytes: number;
}

const settings: SpoolSettings = { minBytes: SPOOL_MIN_BYTES };
let warned = false;

/**
 * Where spool files go and who hears of a failure: set by the artifact store (its `.tmp`, created 0700), so a
 * payload is spooled on the disk that is to keep it. `minBytes` is for tests. Answers a function that undoes it.
 */
export function configureSpool(change: Partial<SpoolSettings>): () => void {
  const before = { ...settings };
  Object.assign(settings, change);
  return () => {
    for (const key of Object.keys(change) as (keyof SpoolSettings)[]) {
      if (settings[key] === change[key]) Object.assign(settings, { [key]: before[key] });
    }
  };
}

export function spoolMinBytes(): number {
  return settings.minBytes;
}

/** The directory of `ownDir`, once made and checked. */
let checkedOwnDir: string | undefined;

function spoolDir(): string {
  return settings.dir ?? (checkedOwnDir ??= ownDir());
}

/**
 * `<tmp>/mcp-offload-spool-<user>` when no store said where: one per user, made 0700 on first use. In a shared /tmp
 * another user could make it first, or plant a link: then it is refused (and literals stay in memory).
 */
function ownDir(): string {
  let user = String(process.getuid?.() ?? '');
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container running as an arbitrary uid): the uid names it.
  }
  const dir = join(tmpdir(), `mcp-offload-spool-${user.replace(/[^\w.-]/g, '_')}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (process.platform !== 'win32' && st.mode & 0o077))
    throw new Error(`${dir} is not a private directory of this user`);
  return dir;
}

/** Closes the file of a spool the program forgot to dispose of, once nothing can read it any more. */
const forgotten = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

/**
 * One literal's bytes in a file of its own, written as they arrive and read back in windows. The file is unlinked as
 * soon as it is open (where the system allows it): nothing is left behind on a crash, and the space is the system's
 * again when the last reader lets go. Several views may share it (the inner strings of one literal): each holds it.
 */
export class SpoolFile {
  private fd: number | undefined;
  /** Set while the file still has a name (a system that cannot unlink an open file): removed on close. */
  private path: string | undefined;
  private holders = 1;
  /** Bytes written so far. */
  length = 0;

  private constructor(fd: number, path: string | undefined) {
    this.fd = fd;
    this.path = path;
    forgotten.register(this, fd, this);
  }

  /** A new, empty spool file; undefined when none can be made (a failure reported once). */
  static create(): SpoolFile | undefined {
    let path: string | undefined;
    try {
      path = join(spoolDir(), `spool-${process.pid}-${randomBytes(8).toString('hex')}`);
      const fd = openSync(path, 'wx+', 0o600);
      try {
        unlinkSync(path);
        path = undefined;
      } catch {
        // Windows: the name stays until the file is closed.
      }
      return new SpoolFile(fd, path);
    } catch (error) {
      spoolFailed(error, path);
      return undefined;
    }
  }

  /** Appends the bytes; false when they could not all be written (a full disk): the file is then as it was. */
  append(bytes: Uint8Array): boolean {
    try {
      for (let done = 0; done < bytes.length;)
        done += writeSync(this.fd!, bytes, done, bytes.length - done, this.length + done);
      this.length += bytes.length;
      return true;
    } catch (error) {
      spoolFailed(error);
      return false;
    }
  }

  /** Reads bytes at `position` into `into` (all of it, unless the file ends first); answers how many. */
  readInto(into: Uint8Array, position: number): number {
    let done = 0;
    while (done < into.length) {
      const n = readSync(this.fd!, into, done, into.length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  /** Bytes [start, end) in a buffer of their own. */
  read(start: number, end: number): Buffer {
    const out = Buffer.allocUnsafe(Math.max(0, end - start));
    return out.subarray(0, this.readInto(out, start));
  }

  /** One more view reads this file. */
  hold(): this {
    this.holders++;
    return this;
  }

  /** One view is done with it; the last closes it, and the system takes the space back. */
  release(): void {
    if (--this.holders > 0 || this.fd === undefined) return;
    forgotten.unregister(this);
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Nothing to do: the descriptor is gone either way.
    }
    if (this.path) rmSync(this.path, { force: true });
  }
}

/** The first failure is a warning (a full disk, a missing directory); later ones would only repeat it. */
function spoolFailed(error: unknown, path?: string): void {
  const code = (error as NodeJS.ErrnoException).code;
  const detail = { err: error instanceof Error ? error.message : String(error), code, dir: settings.dir };
  const message = 'cannot spool a long literal to disk; holding it in memory';
  if (!warned) settings.log?.warn(detail, message);
  else settings.log?.debug(detail, message);
  warned = true;
  if (path) rmSync(path, { force: true });
}
