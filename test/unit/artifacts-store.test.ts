import { jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join, sep } from 'node:path';
import { pino } from 'pino';
import { describeFsError } from '../../src/artifacts/atomic-write.js';
import { runGc } from '../../src/artifacts/gc-command.js';
import { artifactId } from '../../src/artifacts/names.js';
import { LocalBackend } from '../../src/artifacts/local-backend.js';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { ArtifactStoreError, type StoreOptions } from '../../src/artifacts/types.js';
import { silentLogger } from '../../src/logger.js';
import { SVG, pdf, png, tempDir } from './artifacts-samples.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const HOUR = 3600_000;

let tmp: { dir: string; cleanup: () => Promise<void> };
let clock: number;
let options: StoreOptions;

beforeEach(async () => {
  tmp = await tempDir();
  clock = Date.parse('2025-01-01T00:00:00Z');
  options = { dir: join(tmp.dir, 'store'), maxArtifactBytes: 1024 * 1024, quotaBytes: 0, ttlMs: 0, now: () => clock };
});

afterEach(async () => {
  await chmod(tmp.dir, 0o700).catch(() => undefined);
  await tmp.cleanup();
});

async function openStore(overrides: Partial<StoreOptions> = {}, log = silentLogger): Promise<ArtifactStore> {
  const store = new ArtifactStore({ ...options, ...overrides }, log);
  await store.init();
  return store;
}

/** Every file under the store, relative, sorted: "nothing was written" is "this did not change". */
async function files(dir = options.dir): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(dir.length + 1))
    .sort();
}

function capturingLogger(): { log: typeof silentLogger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void out.push(s) });
  return { log, lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

async function expectStoreError(p: Promise<unknown>, reason: ArtifactStoreError['reason'], message?: RegExp) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ArtifactStoreError);
  expect((err as ArtifactStoreError).reason).toBe(reason);
  if (message) expect((err as Error).message).toMatch(message);
  return err as ArtifactStoreError;
}

describe('put, get and read', () => {
  test('round trip of bytes, checked by sha256', async () => {
    const store = await openStore();
    const bytes = png(4, 4);
    const r = await store.put({
      data: { bytes },
      mimeType: 'image/png',
      server: 'pics',
      tool: 'render',
      argsHash: 'abc',
      filename: '../../chart.png',
      facts: { width: 4 },
      owner: 'session-1',
    });
    expect(r).toMatchObject({
      id: `pics/render_${sha(bytes).slice(0, 12)}.png`,
      mimeType: 'image/png',
      size: bytes.length,
      sha256: sha(bytes),
      server: 'pics',
      tool: 'render',
      argsHash: 'abc',
      filename: 'chart.png',
      facts: { width: 4 },
      owners: ['session-1'],
    });
    expect(r.uri).toBe(`artifact://${r.id}`);
    expect(r.path).toBe(join(options.dir, 'pics', `render_${sha(bytes).slice(0, 12)}.png`));
    expect(new Date(r.created).getTime()).toBe(clock);
    expect(sha(await readFile(r.path))).toBe(sha(bytes));
    expect(sha(await store.read(r.id))).toBe(sha(bytes));
    expect(sha(await store.read(r.uri))).toBe(sha(bytes));
    expect(store.get(r.uri)).toEqual(r);
    expect(store.bySha(sha(bytes))).toEqual(r);
    expect(store.totalBytes).toBe(bytes.length);
    if (process.platform !== 'win32') {
      expect((await stat(r.path)).mode & 0o777).toBe(0o600);
      expect((await stat(options.dir)).mode & 0o777).toBe(0o700);
    }
  });

  test('bytes of several pieces (over 1 MiB, not a multiple of it) are stored whole, their type sniffed', async () => {
    // The store writes bytes 1 MiB at a time while it hashes them (bytePieces): the last, short piece too.
    const store = await openStore({ maxArtifactBytes: 0 });
    const bytes = Buffer.concat([pdf(), Buffer.alloc(2 * 1024 * 1024 + 3, 'x')]);
    const r = await store.put({ data: { bytes }, server: 'docs', tool: 'export' });
    expect(r).toMatchObject({ mimeType: 'application/pdf', size: bytes.length, sha256: sha(bytes) });
    expect(sha(await readFile(r.path))).toBe(sha(bytes));
    expect(await files()).toEqual([r.id, `.meta/${sha(bytes)}.json`].sort());
  });

  test('text and raw bytes; the type is sniffed when missing or contradicted', async () => {
    const store = await openStore();
    const t = await store.put({
      data: { bytes: Buffer.from('héllo') },
      mimeType: 'text/plain; charset=utf-8',
      server: 's',
      tool: 't',
    });
    expect(t.mimeType).toBe('text/plain');
    expect(t.id).toMatch(/\.txt$/);
    expect((await store.read(t.id)).toString('utf8')).toBe('héllo');

    const p = await store.put({ data: { bytes: pdf() }, mimeType: 'image/png', server: 's', tool: 't' });
    expect(p.mimeType).toBe('application/pdf');
    expect(p.id).toMatch(/\.pdf$/);

    const svg = await store.put({ data: { bytes: Buffer.from(SVG) }, server: 's', tool: 't' });
    expect(svg.mimeType).toBe('image/svg+xml');
    expect(svg.id).toMatch(/\.svg$/);

    const unknown = await store.put({
      data: { bytes: Buffer.from([1, 2, 3]) },
      server: 's',
      tool: 't',
      filename: 'x.dat',
    });
    expect(unknown.mimeType).toBe('application/octet-stream');
    expect(unknown.id).toMatch(/\.bin$/);
    expect(unknown.filename).toBe('x.dat');

    const jpeg = await store.put({ data: { bytes: pdf('other') }, server: 's', tool: 't', filename: 'Doc.PDF' });
    expect(jpeg.id).toMatch(/\.pdf$/);
  });

  test('the same bytes twice: one file, one record, owners merged', async () => {
    const store = await openStore();
    const bytes = pdf();
    const a = await store.put({ data: { bytes }, server: 's', tool: 'a', owner: 'one' });
    clock += 1000;
    const b = await store.put({ data: { bytes: Buffer.from(bytes) }, server: 's', tool: 'b', owner: 'two' });
    const again = await store.put({ data: { bytes }, server: 's', tool: 'a', owner: 'one' });
    // Named after the tool of each put (the bytes are shared): b's name says b, a's says a.
    expect(b.id).toBe(a.id.replace('s/a_', 's/b_'));
    expect(again.id).toBe(a.id);
    expect(store.get(b.uri)).toMatchObject({ id: b.id, uri: b.uri, tool: 'b', sha256: a.sha256 });
    expect((await store.read(b.uri)).equals(bytes)).toBe(true);
    expect(b.path).toBe(a.path);
    expect(b.owners).toEqual(['one', 'two']);
    expect(store.list()).toHaveLength(1);
    expect(await files()).toEqual([`.meta/${sha(bytes)}.json`, a.id.split('/').join(sep)].sort());
    // Owners are persisted, not just remembered.
    const meta = JSON.parse(await readFile(join(options.dir, '.meta', `${sha(bytes)}.json`), 'utf8'));
    expect(meta.owners).toEqual(['one', 'two']);
    expect(meta.names).toEqual([{ id: b.id, server: 's', tool: 'b' }]);
  });

  test('listNames shows each file under every name it goes by, to its owners only; server and tool pick names', async () => {
    const store = await openStore();
    const bytes = pdf('named');
    const a = await store.put({ data: { bytes }, server: 's', tool: 'a', owner: 'one' });
    clock += 1000;
    const b = await store.put({ data: { bytes }, server: 'r', tool: 'b', owner: 'two' });
    clock += 1000;
    const other = await store.put({ data: { bytes: pdf('other') }, server: 's', tool: 'a', owner: 'one' });
    const names = (filter: Parameters<ArtifactStore['listNames']>[0]) =>
      store.listNames(filter).map((r) => [r.uri, r.server, r.tool]);
    // Owners are per file: each owner of the bytes reads them by either name, so both are listed to both.
    expect(names({ owner: 'one' })).toEqual([
      [other.uri, 's', 'a'],
      [a.uri, 's', 'a'],
      [b.uri, 'r', 'b'],
    ]);
    expect(names({ owner: 'two' })).toEqual([
      [a.uri, 's', 'a'],
      [b.uri, 'r', 'b'],
    ]);
    expect(names({ owner: 'three' })).toEqual([]);
    expect(names({ owner: 'one', server: 'r' })).toEqual([[b.uri, 'r', 'b']]);
    expect(names({ owner: 'two', tool: 'a' })).toEqual([[a.uri, 's', 'a']]);
    // list still counts files.
    expect(store.list({ owner: 'two' }).map((r) => r.uri)).toEqual([a.uri]);
  });

  test('20 concurrent identical puts end with exactly one file and one record', async () => {
    const store = await openStore();
    const bytes = png(16, 16);
    const records = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.put({ data: { bytes: Buffer.from(bytes) }, server: 's', tool: 't', owner: `o${i}` }),
      ),
    );
    expect(new Set(records.map((r) => r.id)).size).toBe(1);
    expect(store.list()).toHaveLength(1);
    expect(store.get(records[0]!.id)!.owners.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `o${i}`).sort());
    expect(await files()).toHaveLength(2); // the artifact and its metadata
    expect(await readdir(join(options.dir, '.tmp'))).toEqual([]);
    expect(store.totalBytes).toBe(bytes.length);
  });

  test('different bytes: different files', async () => {
    const store = await openStore();
    const a = await store.put({ data: { bytes: png(1, 1, 1) }, server: 's', tool: 't' });
    const b = await store.put({ data: { bytes: png(1, 1, 2) }, server: 's', tool: 't' });
    expect(a.id).not.toBe(b.id);
    expect(await files()).toHaveLength(4);
    expect(store.totalBytes).toBe(a.size + b.size);
  });

  test('hostile server and tool names stay inside the directory', async () => {
    const store = await openStore();
    const r = await store.put({ data: { bytes: pdf() }, server: '../../../etc', tool: '/abs/../x', owner: 'o' });
    expect(r.path.startsWith(options.dir + sep)).toBe(true);
    expect(r.id.split('/')).toHaveLength(2);
    expect(await store.read(r.id)).toEqual(pdf());
  });

  test('put before init opens the store itself', async () => {
    const store = new ArtifactStore(options, silentLogger);
    const record = await store.put({ data: { bytes: Buffer.from('x') }, server: 's', tool: 't' });
    expect((await store.read(record.id)).toString()).toBe('x');
  });
});

describe('refusals leave nothing behind', () => {
  test('oversize → too-large', async () => {
    const store = await openStore({ maxArtifactBytes: 1000 });
    const before = await files();
    const big = Buffer.alloc(1500, 1);
    const err = await expectStoreError(
      store.put({ data: { bytes: big }, server: 's', tool: 't' }),
      'too-large',
      /^payload of 1500 bytes \(1\.5 KB\) exceeds the artifact limit of 1000 bytes/,
    );
    expect(err.message).toContain('(1000 B)');
    expect(await files()).toEqual(before);
    expect(await readdir(join(options.dir, '.tmp'))).toEqual([]);
  });
});

describe('unwritable directories', () => {
  test('init under a file (ENOTDIR) throws a clear error', async () => {
    const file = join(tmp.dir, 'a-file');
    await writeFile(file, 'x');
    const store = new ArtifactStore({ ...options, dir: join(file, 'sub') }, silentLogger);
    await expectStoreError(
      store.init(),
      'unwritable',
      new RegExp(
        `^artifact directory ${join(file, 'sub').replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')} is not writable: .*\\(ENOTDIR\\)`,
      ),
    );
  });

  // An EACCES directory cannot be staged here: chmod does not stop root, and CI runs as root. The
  // failing-write tests below exercise real errors; describeFsError's wording is checked further down.
  test('a file where the server folder should be → unwritable, nothing partial', async () => {
    const store = await openStore();
    const first = await store.put({ data: { bytes: pdf('1') }, server: 'srv', tool: 't' });
    await rm(join(options.dir, 'srv'), { recursive: true });
    await writeFile(join(options.dir, 'srv'), 'in the way');
    const before = await files();
    await expectStoreError(
      store.put({ data: { bytes: pdf('2') }, server: 'srv', tool: 't' }),
      'unwritable',
      /cannot write .*srv: a file is in the way of a directory \((EEXIST|ENOTDIR)\)/,
    );
    expect(await files()).toEqual(before);
    expect(await readdir(join(options.dir, '.tmp'))).toEqual([]);
    expect(store.list().map((r) => r.id)).toEqual([first.id]);
  });

  test('a failure after the metadata was written removes the metadata too', async () => {
    const store = await openStore();
    const bytes = pdf('blocked');
    // A directory squatting on the artifact's own name makes the final rename fail.
    await mkdir(join(options.dir, ...artifactId('s', 't', sha(bytes), 'pdf').split('/')), { recursive: true });
    await expectStoreError(store.put({ data: { bytes }, server: 's', tool: 't' }), 'unwritable', /cannot write/);
    expect(await readdir(join(options.dir, '.meta'))).toEqual([]);
    expect(await readdir(join(options.dir, '.tmp'))).toEqual([]);
    expect(store.bySha(sha(bytes))).toBeUndefined();
    expect(store.totalBytes).toBe(0);
  });

  test('fs error codes become words', () => {
    const e = (code: string) => Object.assign(new Error(`${code}: raw`), { code });
    expect(describeFsError(e('ENOSPC'))).toBe('disk full (ENOSPC)');
    expect(describeFsError(e('EACCES'))).toBe('permission denied (EACCES)');
    expect(describeFsError(e('EPERM'))).toBe('permission denied (EPERM)');
    expect(describeFsError(e('EROFS'))).toMatch(/^permission denied/);
    expect(describeFsError(e('EWEIRD'))).toBe('EWEIRD: raw');
  });
});

describe('reading', () => {
  test('byte ranges: end exclusive, clamped to the file', async () => {
    const store = await openStore();
    const bytes = Buffer.from('0123456789');
    const { id } = await store.put({ data: { bytes }, mimeType: 'text/plain', server: 's', tool: 't' });
    expect((await store.read(id, { start: 2, end: 5 })).toString()).toBe('234');
    expect((await store.read(id, { start: 7 })).toString()).toBe('789');
    expect((await store.read(id, { start: 8, end: 100 })).toString()).toBe('89');
    expect((await store.read(id, { start: 20 })).length).toBe(0);
    expect((await store.read(id, { start: 3, end: 3 })).length).toBe(0);
    await expect(store.read(id, { start: -1 })).rejects.toThrow(RangeError);
    await expect(store.read(id, { start: 5, end: 4 })).rejects.toThrow(RangeError);
    await expect(store.read(id, { start: 1.5 })).rejects.toThrow(RangeError);

    const collect = async (start: number, end?: number) => {
      const chunks: Buffer[] = [];
      for await (const c of await store.createReadStream(id, { start, end })) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString();
    };
    expect(await collect(2, 5)).toBe('234');
    expect(await collect(0)).toBe('0123456789');
    expect(await collect(4, 4)).toBe('');
  });

  test('path traversal and unknown ids are not-found, never a read outside the store', async () => {
    const store = await openStore();
    await writeFile(join(tmp.dir, 'secret'), 'secret');
    const { id } = await store.put({ data: { bytes: pdf() }, server: 's', tool: 't' });
    for (const bad of [
      '../x',
      '../secret',
      '/etc/passwd',
      'artifact://../../x',
      'artifact://../secret',
      'artifact:///etc/passwd',
      `${id}/..`,
      `s/../${id}`,
      '',
      'artifact://',
    ]) {
      expect(store.get(bad)).toBeUndefined();
      await expectStoreError(store.read(bad), 'not-found');
      await expectStoreError(store.createReadStream(bad), 'not-found');
    }
  });

  test('a file deleted by hand is not-found, and forgotten', async () => {
    const store = await openStore();
    const r = await store.put({ data: { bytes: pdf() }, server: 's', tool: 't' });
    await rm(r.path);
    await expectStoreError(store.read(r.id), 'not-found', /deleted/);
    expect(store.get(r.id)).toBeUndefined();
    expect(store.totalBytes).toBe(0);
    // Putting the same bytes again brings it back.
    const again = await store.put({ data: { bytes: pdf() }, server: 's', tool: 't' });
    expect(await store.read(again.id)).toEqual(pdf());
  });
});

describe('listing', () => {
  test('newest first, filtered by owner, server and tool', async () => {
    const store = await openStore();
    const a = await store.put({ data: { bytes: png(1, 1, 1) }, server: 'x', tool: 'one', owner: 'alice' });
    clock += 1000;
    const b = await store.put({ data: { bytes: png(1, 1, 2) }, server: 'y', tool: 'one', owner: 'bob' });
    clock += 1000;
    const c = await store.put({ data: { bytes: png(1, 1, 3) }, server: 'x', tool: 'two', owner: 'alice' });
    expect(store.list().map((r) => r.id)).toEqual([c.id, b.id, a.id]);
    expect(store.list({ owner: 'alice' }).map((r) => r.id)).toEqual([c.id, a.id]);
    expect(store.list({ owner: 'carol' })).toEqual([]);
    expect(store.list({ server: 'x', tool: 'one' }).map((r) => r.id)).toEqual([a.id]);
    // Storing the same bytes again counts as new.
    clock += 1000;
    await store.put({ data: { bytes: png(1, 1, 1) }, server: 'x', tool: 'one', owner: 'alice' });
    expect(store.list()[0]!.id).toBe(a.id);
  });

  test('returned records are copies', async () => {
    const store = await openStore();
    const r = await store.put({ data: { bytes: pdf() }, server: 's', tool: 't', owner: 'o' });
    r.owners.push('intruder');
    store.list()[0]!.owners.push('intruder');
    expect(store.get(r.id)!.owners).toEqual(['o']);
  });
});

describe('persistence', () => {
  test('records survive a new store on the same directory', async () => {
    const first = await openStore();
    const r = await first.put({
      data: { bytes: pdf() },
      server: 's',
      tool: 't',
      owner: 'o1',
      filename: 'a.pdf',
      facts: { pages: 1 },
    });
    await first.put({ data: { bytes: pdf() }, server: 's', tool: 't', owner: 'o2' });

    const second = await openStore();
    expect(second.get(r.id)).toEqual({ ...r, owners: ['o1', 'o2'], lastStored: expect.any(String) });
    expect(second.totalBytes).toBe(r.size);
    expect(await second.read(r.uri)).toEqual(pdf());
    const again = await second.put({ data: { bytes: pdf() }, server: 's', tool: 't', owner: 'o3' });
    expect(again.id).toBe(r.id);
    expect(await files()).toHaveLength(2);
  });

  test('corrupt or unsafe metadata is logged and ignored', async () => {
    const first = await openStore();
    const good = await first.put({ data: { bytes: pdf() }, server: 's', tool: 't' });
    const meta = join(options.dir, '.meta');
    await writeFile(join(meta, `${'1'.repeat(64)}.json`), '{ not json');
    await writeFile(join(tmp.dir, 'outside.txt'), 'outside');
    const evil = { ...good, sha256: '2'.repeat(64), id: '../outside.txt' };
    await writeFile(join(meta, `${'2'.repeat(64)}.json`), JSON.stringify(evil));
    await writeFile(join(meta, 'README'), 'not ours');

    const { log, lines } = capturingLogger();
    const second = await openStore({}, log);
    expect(second.list().map((r) => r.id)).toEqual([good.id]);
    expect(second.get('../outside.txt')).toBeUndefined();
    const warnings = lines().filter((l) => l.msg === 'ignoring invalid artifact metadata');
    expect(warnings.map((w) => w.problem).sort()).toEqual([
      expect.stringMatching(/^not JSON/),
      expect.stringMatching(/^unsafe id/),
    ]);
    // Left alone for a person to look at.
    expect(await readdir(meta)).toHaveLength(4);
  });

  test('a directory of more records than one batch: all are read; a file gone or changed by hand is dealt with', async () => {
    // Records are read in synchronous batches of 256 (metadata.ts, LOAD_BATCH): more than one batch here.
    const first = await openStore();
    const COUNT = 300;
    const records = [];
    for (let i = 0; i < COUNT; i++)
      records.push(await first.put({ data: { bytes: Buffer.from(`record ${i}`) }, server: 's', tool: 't' }));
    const meta = (sha256: string) => join(options.dir, '.meta', `${sha256}.json`);
    // Bytes deleted by hand, long ago: the record goes, its metadata too. Recently: another proxy's put may be
    // writing them, the metadata stays. Bytes changed by hand: the record is ignored, with a warning.
    const [gone, writing, changed] = records;
    await rm(gone!.path);
    const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
    await utimes(meta(gone!.sha256), twoHoursAgo, twoHoursAgo);
    await rm(writing!.path);
    await writeFile(changed!.path, 'changed by hand, and longer');
    const { log, lines } = capturingLogger();
    const second = await openStore({}, log);
    expect(second.list().length).toBe(COUNT - 3);
    for (const record of records.slice(3)) expect(second.get(record.id)?.sha256).toBe(record.sha256);
    await expect(stat(meta(gone!.sha256))).rejects.toThrow(/ENOENT/);
    expect((await stat(meta(writing!.sha256))).isFile()).toBe(true);
    expect(
      lines()
        .filter((l) => l.msg === 'artifact file was changed; ignoring it')
        .map((l) => l.path),
    ).toEqual([changed!.path]);
  });

  test('stale temp files are cleaned at init, fresh ones (another process writing) are not', async () => {
    await openStore();
    const old = join(options.dir, '.tmp', 'old');
    const fresh = join(options.dir, '.tmp', 'fresh');
    await writeFile(old, 'x');
    await writeFile(fresh, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
    await utimes(old, twoHoursAgo, twoHoursAgo);
    await openStore();
    expect(await readdir(join(options.dir, '.tmp'))).toEqual(['fresh']);
  });

  test('the default directory is per user under the temp dir', () => {
    const dir = ArtifactStore.defaultDir();
    expect(dir.startsWith(os.tmpdir() + sep)).toBe(true);
    expect(dir).toMatch(/mcp-offload-[A-Za-z0-9._-]+$/);
  });

  // Like the default directory: a predictable name in a world-writable temp dir.
  describe('in a world-writable parent', () => {
    const posix = process.platform === 'win32' ? test.skip : test;
    let shared: string;
    beforeEach(async () => {
      shared = join(tmp.dir, 'shared-tmp');
      await mkdir(shared);
      await chmod(shared, 0o1777);
    });

    posix('an existing directory is made private', async () => {
      const dir = join(shared, 'mcp-offload-me');
      await mkdir(dir);
      await chmod(dir, 0o777);
      await openStore({ dir });
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    });

    posix('a planted symlink is refused and nothing is written through it', async () => {
      const target = join(tmp.dir, 'attacker');
      await mkdir(target);
      const dir = join(shared, 'mcp-offload-me');
      await symlink(target, dir);
      await expectStoreError(openStore({ dir }), 'unwritable', /is not writable: it is a symbolic link/);
      expect(await readdir(target)).toEqual([]);
    });

    posix('a directory of another user is refused', async () => {
      if (process.getuid?.() !== 0) return; // only root can create one to test with
      const dir = join(shared, 'mcp-offload-me');
      await mkdir(dir);
      await chown(dir, 65534, 65534);
      await expectStoreError(openStore({ dir }), 'unwritable', /belongs to another user \(uid 65534\)/);
    });
  });
});

describe('garbage collection', () => {
  test('by TTL', async () => {
    const store = await openStore({ ttlMs: 24 * HOUR });
    const old = await store.put({ data: { bytes: png(1, 1, 1) }, server: 's', tool: 't' });
    clock += 10 * HOUR;
    const young = await store.put({ data: { bytes: png(1, 1, 2) }, server: 's', tool: 't' });
    const result = await store.gc(clock + 15 * HOUR);
    expect(result).toEqual({
      removed: 1,
      freedBytes: old.size,
      remaining: 1,
      remainingBytes: young.size,
      forgotten: 0,
    });
    expect(store.get(old.id)).toBeUndefined();
    expect(await files()).toEqual([`.meta/${young.sha256}.json`, young.id.split('/').join(sep)].sort());
    expect((await store.gc(clock + 100 * HOUR)).removed).toBe(1);
    expect(await files()).toEqual([]);
  });

  test('storing identical bytes again restarts the TTL', async () => {
    const store = await openStore({ ttlMs: 24 * HOUR });
    const r = await store.put({ data: { bytes: pdf() }, server: 's', tool: 't' });
    clock += 20 * HOUR;
    await store.put({ data: { bytes: pdf() }, server: 's', tool: 't' });
    expect((await store.gc(clock + 10 * HOUR)).removed).toBe(0);
    expect(store.get(r.id)).toBeDefined();
  });

  test('by quota, oldest first, after each put, never the artifact just written', async () => {
    const size = png(8, 8, 0).length;
    const store = await openStore({ quotaBytes: Math.floor(size * 2.5) });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      clock += 1000;
      ids.push((await store.put({ data: { bytes: png(8, 8, i) }, server: 's', tool: 't' })).id);
    }
    expect(store.list().map((r) => r.id)).toEqual([ids[3], ids[2]]);
    expect(store.totalBytes).toBeLessThanOrEqual(size * 2.5);

    const tiny = await openStore({ quotaBytes: 10 });
    const big = await tiny.put({ data: { bytes: png(8, 8, 9) }, server: 's', tool: 't' });
    expect(tiny.list().map((r) => r.id)).toEqual([big.id]);
  });

  test('explicit gc with a smaller quota removes the oldest', async () => {
    const first = await openStore();
    const recs = [];
    for (let i = 0; i < 3; i++) {
      clock += 1000;
      recs.push(await first.put({ data: { bytes: png(2, 2, i) }, server: 's', tool: 't' }));
    }
    const limited = await openStore({ quotaBytes: recs[2]!.size + 1 });
    const result = await limited.gc();
    expect(result.removed).toBe(2);
    expect(limited.list().map((r) => r.id)).toEqual([recs[2]!.id]);
  });

  test('files deleted by hand do not break gc', async () => {
    const store = await openStore({ ttlMs: HOUR });
    const a = await store.put({ data: { bytes: png(1, 1, 1) }, server: 's', tool: 't' });
    const b = await store.put({ data: { bytes: png(1, 1, 2) }, server: 's', tool: 't' });
    const c = await store.put({ data: { bytes: png(1, 1, 3) }, server: 'other', tool: 't' });
    await rm(a.path);
    await rm(join(options.dir, 'other'), { recursive: true });
    const result = await store.gc();
    expect(result).toMatchObject({ removed: 0, forgotten: 2, remaining: 1, remainingBytes: b.size });
    expect(store.get(c.id)).toBeUndefined();
    expect((await store.gc(clock + 2 * HOUR)).removed).toBe(1);
    expect(await files()).toEqual([]);
  });

  test('the first collection does not look again at the bytes the store just opened with', async () => {
    const first = await openStore({ ttlMs: HOUR });
    const loaded = [];
    for (let i = 0; i < 3; i++) loaded.push(await first.put({ data: { bytes: png(1, 1, i) }, server: 's', tool: 't' }));
    first.close();
    const looked = jest.spyOn(LocalBackend.prototype, 'contentSize');
    try {
      const store = await openStore({ ttlMs: HOUR });
      const added = await store.put({ data: { bytes: png(1, 1, 9) }, server: 's', tool: 't' });
      looked.mockClear();
      // Gone after the opening looked: the first collection misses it, the next one finds it.
      await rm(loaded[0]!.path);
      expect(await store.gc()).toMatchObject({ forgotten: 0, remaining: 4 });
      expect(looked.mock.calls.map(([r]) => r.id)).toEqual([added.id]);
      looked.mockClear();
      expect(await store.gc()).toMatchObject({ forgotten: 1, remaining: 3 });
      expect(looked).toHaveBeenCalledTimes(4);
    } finally {
      looked.mockRestore();
    }
  });

  test('runGc reports in one line', async () => {
    const store = await openStore();
    const a = await store.put({ data: { bytes: Buffer.alloc(2048, 1) }, server: 's', tool: 't' });
    clock += 2 * HOUR;
    await store.put({ data: { bytes: Buffer.alloc(1024, 2) }, server: 's', tool: 't' });
    expect(a.size).toBe(2048);
    const line = await runGc({ ...options, ttlMs: HOUR }, silentLogger);
    expect(line).toBe(`removed 1 artifact (2.0 KB), 1 remain (1.0 KB) in ${options.dir}`);
    expect(await runGc({ ...options, ttlMs: HOUR }, silentLogger)).toBe(
      `removed 0 artifacts (0 B), 1 remain (1.0 KB) in ${options.dir}`,
    );
  });
});
