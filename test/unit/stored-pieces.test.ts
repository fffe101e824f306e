// Payloads stored piece by piece (base64 kept as bytes, decoded while written): the same record, type
// and facts as the whole bytes give, and nothing left behind when they turn out invalid or too large.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { artifactId } from '../../src/artifacts/names.js';
import { HEAD_BYTES } from '../../src/artifacts/piece-file.js';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { ArtifactStoreError, type PieceSource } from '../../src/artifacts/types.js';
import { silentLogger } from '../../src/logger.js';
import { factsFor, factsWatcher } from '../../src/pipeline/facts/index.js';
import { imageFacts, imageFactsOfFile } from '../../src/pipeline/facts/image.js';
import { PageCounter } from '../../src/pipeline/facts/pdf.js';
import * as fx from './detect-fixtures.js';
import { docx, tempDir } from './artifacts-samples.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The bytes in pieces of `size` (fresh buffers, as the decoder gives them), failing at piece `failAt` if given. */
function piecesOf(bytes: Buffer, size = 65_536, failAt?: number): PieceSource {
  return {
    size: bytes.length,
    *pieces() {
      for (let at = 0, n = 0; at < bytes.length; at += size, n++) {
        if (n === failAt) throw new ArtifactStoreError('invalid-data', 'invalid base64: the payload is not base64');
        yield Buffer.from(bytes.subarray(at, at + size));
      }
    },
  };
}

/** A JPEG whose size marker comes after `padding` bytes of APP1 segments. */
function jpegWithLongHead(width: number, height: number, padding: number): Buffer {
  const plain = fx.jpeg(width, height);
  const segments: Buffer[] = [];
  for (let left = padding; left > 0; left -= 65_533) {
    const length = Math.min(65_533, left) + 2;
    segments.push(
      Buffer.concat([Buffer.from([0xff, 0xe1, length >> 8, length & 0xff]), Buffer.alloc(length - 2, 0x41)]),
    );
  }
  return Buffer.concat([plain.subarray(0, 2), ...segments, plain.subarray(2)]);
}

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  tmp = await tempDir();
});
afterEach(async () => {
  await tmp.cleanup();
});

const openStore = async (maxArtifactBytes = 64 * 1024 * 1024) => {
  const store = new ArtifactStore(
    { dir: join(tmp.dir, 'store'), maxArtifactBytes, quotaBytes: 0, ttlMs: 0 },
    silentLogger,
  );
  await store.init();
  return store;
};
const leftovers = async () =>
  (await readdir(join(tmp.dir, 'store'), { recursive: true })).filter((f) => !['.meta', '.tmp'].includes(f));

describe('the page count of a PDF fed in pieces', () => {
  const REFERENCE = /\/Type\s*\/Page(?![a-zA-Z])/g;
  const token = fc.constantFrom(
    '/Type',
    '/Page',
    '/Pages',
    '/Pagex',
    ' ',
    '\n',
    '\xa0',
    '   ',
    'x',
    '/',
    '/T',
    'Type',
    'Page',
    'a',
    '/Obj',
    'Stm',
    '/ObjStm',
  );

  test('is the count of the regular expression over the whole, wherever the pieces are cut', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), fc.array(fc.nat(40), { maxLength: 8 }), (tokens, cuts) => {
        const bytes = Buffer.from(tokens.join(''), 'latin1');
        const counter = new PageCounter();
        let at = 0;
        for (const cut of [...cuts, bytes.length]) {
          counter.add(bytes.subarray(at, Math.max(at, Math.min(bytes.length, at + cut))));
          at = Math.max(at, Math.min(bytes.length, at + cut));
        }
        counter.add(bytes.subarray(at));
        expect(counter.finish()).toBe((bytes.toString('latin1').match(REFERENCE) ?? []).length);
        expect(counter.objectStreams).toBe(bytes.includes('/ObjStm'));
      }),
      { numRuns: 2000 },
    );
  });

  test('a /Type begun at the end of the carried bytes and finished by pieces shorter than itself', () => {
    // Found by the property above: "/Type/" carried, then "T", then "ype/Page".
    const counter = new PageCounter();
    for (const piece of ['/Type/Type/Type/Type/', 'T', 'ype/Page']) counter.add(Buffer.from(piece, 'latin1'));
    expect(counter.finish()).toBe(1);
    const byteByByte = new PageCounter();
    for (const byte of Buffer.from('/Type /Page /Type/Pages /Type/Page\n', 'latin1'))
      byteByByte.add(Buffer.from([byte]));
    expect(byteByByte.finish()).toBe(2);
  });

  test('a run of spaces longer than a piece between /Type and /Page', () => {
    const counter = new PageCounter();
    for (const piece of ['/Type', ' '.repeat(100_000), ' '.repeat(100_000), '/Pa', 'ge', ' /Type /Pages'])
      counter.add(Buffer.from(piece));
    expect(counter.finish()).toBe(1);
  });
});

describe('facts of a payload written in pieces', () => {
  test('equal the facts of the whole bytes', async () => {
    const samples: [Buffer, string][] = [
      [fx.pdf(7), 'application/pdf'],
      [fx.png(300, 200), 'image/png'],
      [fx.jpeg(640, 480), 'image/jpeg'],
      [fx.gif(3, 4), 'image/gif'],
      [jpegWithLongHead(1234, 567, HEAD_BYTES + 10_000), 'image/jpeg'],
      [jpegWithLongHead(99, 77, HEAD_BYTES - 13), 'image/jpeg'],
      [Buffer.from(JSON.stringify({ rows: [{ a: 1 }, { a: 2 }] })), 'application/json'],
      [Buffer.from('a,b\n1,2\n'), 'text/csv'],
      [docx(), 'application/octet-stream'],
    ];
    for (const [bytes, mimeType] of samples) {
      const path = join(tmp.dir, 'file');
      await writeFile(path, bytes);
      const watcher = factsWatcher(mimeType);
      for (const piece of piecesOf(bytes, 1000).pieces()) watcher.add(piece);
      const facts = await watcher.finish({ path, size: bytes.length, head: bytes.subarray(0, HEAD_BYTES) });
      expect(facts).toEqual(await factsFor(bytes, mimeType));
    }
  });

  test('an image read from its head only when the head settles it', async () => {
    const big = jpegWithLongHead(1234, 567, 3 * HEAD_BYTES);
    let reads = 0;
    const readAll = async () => (reads++, big);
    expect(await imageFactsOfFile(big.subarray(0, HEAD_BYTES), big.length, readAll)).toEqual({
      width: 1234,
      height: 567,
    });
    expect(reads).toBe(1);
    const png = Buffer.concat([fx.png(40, 30), Buffer.alloc(2 * HEAD_BYTES)]);
    expect(await imageFactsOfFile(png.subarray(0, HEAD_BYTES), png.length, readAll)).toEqual(imageFacts(png));
    expect(reads).toBe(1);
  });
});

describe('storing pieces', () => {
  test('the same record as the whole bytes, in one file, also when put concurrently', async () => {
    const bytes = Buffer.concat([fx.pdf(3), fx.noise(300_000)]);
    const store = await openStore();
    const puts = Array.from({ length: 5 }, (_, i) =>
      store.put({
        data: { pieces: piecesOf(bytes) },
        watch: factsWatcher('application/pdf'),
        mimeType: 'application/pdf',
        server: 's',
        tool: 't',
        owner: `o${i}`,
      }),
    );
    const records = await Promise.all(puts);
    expect(new Set(records.map((r) => r.id)).size).toBe(1);
    expect(records[0]).toMatchObject({
      sha256: sha(bytes),
      size: bytes.length,
      mimeType: 'application/pdf',
      facts: { pages: 3 },
    });
    expect(sha(await readFile(records[0].path))).toBe(sha(bytes));
    expect(await readdir(join(tmp.dir, 'store', '.tmp'))).toEqual([]);
    expect((await leftovers()).sort()).toEqual([`.meta/${sha(bytes)}.json`, 's', records[0].id].sort());
    const whole = await store.put({ data: { bytes }, server: 's', tool: 't' });
    expect(whole.id).toBe(records[0].id);
  });

  test('the type is sniffed from the written file as from the bytes (a docx is more than its head)', async () => {
    const store = await openStore();
    const bytes = docx();
    const fromPieces = await store.put({ data: { pieces: piecesOf(bytes, 7) }, server: 's', tool: 'pieces' });
    const fromBytes = await store.put({ data: { bytes }, server: 's', tool: 'bytes' });
    expect(fromPieces.mimeType).toBe(fromBytes.mimeType);
    expect(fromPieces.mimeType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  });

  test('invalid data: invalid-data, nothing left behind; invalid and too large is still invalid', async () => {
    const store = await openStore(100_000);
    const bytes = fx.noise(90_000);
    const error = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: ArtifactStoreError) => e.reason,
      );
    expect(await error(store.put({ data: { pieces: piecesOf(bytes, 10_000, 3) }, server: 's', tool: 't' }))).toBe(
      'invalid-data',
    );
    const large = fx.noise(200_000);
    expect(await error(store.put({ data: { pieces: piecesOf(large, 10_000, 15) }, server: 's', tool: 't' }))).toBe(
      'invalid-data',
    );
    expect(await error(store.put({ data: { pieces: piecesOf(large, 10_000) }, server: 's', tool: 't' }))).toBe(
      'too-large',
    );
    expect(await leftovers()).toEqual([]);
    expect(await readdir(join(tmp.dir, 'store', '.tmp'))).toEqual([]);
    expect(store.list()).toEqual([]);
  });

  test('a rename that fails is unwritable and removes the metadata and the temporary file', async () => {
    const store = await openStore();
    const bytes = fx.pdf(2);
    await mkdir(join(tmp.dir, 'store', ...artifactId('s', 't', sha(bytes), 'pdf').split('/')), { recursive: true });
    const failed = await store
      .put({ data: { pieces: piecesOf(bytes, 100) }, server: 's', tool: 't' })
      .catch((e: ArtifactStoreError) => e);
    expect(failed).toBeInstanceOf(ArtifactStoreError);
    expect((failed as ArtifactStoreError).message).toMatch(
      /^cannot write .*: a directory is in the way of a file \(EISDIR\)/,
    );
    expect(await readdir(join(tmp.dir, 'store', '.meta'))).toEqual([]);
    expect(await readdir(join(tmp.dir, 'store', '.tmp'))).toEqual([]);
  });
});
