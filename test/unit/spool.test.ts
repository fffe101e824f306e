// Long literals past the spool threshold are written to a file as they arrive (wire/held-literal.ts, spool.ts) rather
// than held in memory. Whatever their path, the bytes must come out as they went in: written back into the message,
// or decoded into the artifact store with the same bytes and sha256 as when they stay in memory. Disposing of a
// message's blobs closes their spool file, and a file is never left behind.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { base64Pieces, decodePieces, NotBase64Error } from '../../src/codec/base64.js';
import { silentLogger } from '../../src/logger.js';
import { ARTIFACTS_META_KEY, ResultPipeline } from '../../src/pipeline/pipeline.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import type { Frame } from '../../src/wire/frame.js';
import { LineReader } from '../../src/wire/lines.js';
import { configureSpool } from '../../src/wire/spool.js';
import { writeChunks } from '../../src/wire/write-stream.js';
import { padTo, pdf, png } from './detect-fixtures.js';

const SPOOL_BYTES = 512 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let dir: string;
let spoolDir: string;
let undo: () => void;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spool-test-'));
  spoolDir = join(dir, 'spool');
  await import('node:fs/promises').then((fs) => fs.mkdir(spoolDir, { mode: 0o700 }));
  undo = configureSpool({ dir: spoolDir, minBytes: SPOOL_BYTES });
});
afterEach(async () => {
  undo();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Reads `line` as the stdio wires do, in chunks of `chunkBytes`, each a buffer of its own as a stream gives them,
 * handed over (so the reader frees those it spooled). Answers the frame and the chunks pushed.
 */
function read(line: Buffer, chunkBytes = 65_536): { frame: Frame; chunks: Buffer[] } {
  const frames: Frame[] = [];
  const reader = new LineReader(
    {
      frame: (frame) => frames.push(frame),
      noise: (_, reason) => {
        throw new Error(reason);
      },
      oversize: () => {
        throw new Error('oversize');
      },
    },
    undefined,
    true,
  );
  const chunks: Buffer[] = [];
  for (let at = 0; at < line.length; at += chunkBytes) {
    const chunk = Buffer.from(line.subarray(at, at + chunkBytes));
    chunks.push(chunk);
    reader.push(chunk, true);
  }
  expect(frames).toHaveLength(1);
  return { frame: frames[0], chunks };
}

/** The spool files this process has open (in this test's directory): unlinked ones show as `… (deleted)`. */
async function openSpoolFiles(inDir = spoolDir): Promise<string[]> {
  const links = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return links.filter((link) => link.startsWith(`${inDir}/`));
}

/** A text of at least `bytes` bytes, with multi-byte characters (é, €, 😀) that chunk edges cut in the middle. */
function unicodeText(bytes: number): string {
  return 'abc é€😀 '.repeat(Math.ceil(bytes / 14));
}

const image = padTo(png(320, 200), 3 * 1024 * 1024);
const document = padTo(pdf(3), 3 * 1024 * 1024);
const message = {
  jsonrpc: '2.0',
  id: 1,
  result: {
    content: [
      { type: 'image', mimeType: 'image/png', data: image.toString('base64') },
      { type: 'text', text: unicodeText(SPOOL_BYTES * 3) },
      { type: 'text', text: JSON.stringify({ name: 'report', format: 'pdf', content: document.toString('base64') }) },
    ],
  },
};
const line = Buffer.from(JSON.stringify(message));

test('chunks not handed over are left as they are', () => {
  const chunks: Buffer[] = [];
  const reader = new LineReader(
    { frame: () => undefined, noise: () => undefined, oversize: () => undefined },
    undefined,
    true,
  );
  for (let at = 0; at < line.length; at += 65_536) {
    chunks.push(Buffer.from(line.subarray(at, at + 65_536)));
    reader.push(chunks.at(-1)!);
  }
  reader.push(Buffer.from('\n'));
  expect(Buffer.concat(chunks).equals(line)).toBe(true);
});

test('a spooled literal comes out byte for byte: written as a frame, encoded, and restored', async () => {
  const { frame, chunks } = read(Buffer.concat([line, Buffer.from('\n')]));
  const result = frame.message.result as unknown as CallToolResult;
  const data = frame.blobs.view((result.content[0] as { data: string }).data)!;
  expect(data.spooled).toBe(true);
  expect(frame.blobs.view((result.content[1] as { text: string }).text)!.spooled).toBe(true);
  // The JSON document's payload is inlaid: a blob of its own, in the same file as the rest of the text was.
  expect(frame.blobs.size).toBe(3);
  // Chunks wholly inside a spooled literal were freed once written.
  expect(chunks.filter((chunk) => chunk.length === 0).length).toBeGreaterThan(chunks.length / 2);

  const written = new PassThrough();
  const out: Buffer[] = [];
  written.on('data', (piece: Buffer) => out.push(piece));
  await writeChunks(written, frame.chunks(true), '\n');
  expect(Buffer.concat(out).equals(Buffer.concat([line, Buffer.from('\n')]))).toBe(true);
  expect(Buffer.from(frame.encode()).equals(line)).toBe(true);
  expect(frame.blobs.restore(frame.message)).toEqual(message);
  frame.blobs.dispose();
});

test('written from its file as the stream takes it, a spooled literal lets no other message in', async () => {
  const { frame } = read(Buffer.concat([line, Buffer.from('\n')]));
  const pieces = frame.pieces(true);
  expect(pieces.filter((piece) => typeof piece !== 'string' && !Buffer.isBuffer(piece))).toHaveLength(3);
  // A reader slower than the writer: the stream's buffer fills, and the writer waits for it to drain.
  const stream = new PassThrough({ highWaterMark: 16 * 1024 });
  const out: Buffer[] = [];
  const reading = (async () => {
    for await (const piece of stream) {
      out.push(piece as Buffer);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const big = writeChunks(stream, pieces, '\n');
  const small = writeChunks(stream, ['{"jsonrpc":"2.0","method":"after"}'], '\n');
  await Promise.all([big, small]);
  stream.end();
  await reading;
  const expected = Buffer.concat([line, Buffer.from('\n{"jsonrpc":"2.0","method":"after"}\n')]);
  expect(Buffer.concat(out).equals(expected)).toBe(true);
  frame.blobs.dispose();
});

test('disposing of the blobs closes their spool files; none was ever left in the directory', async () => {
  const before = await openSpoolFiles();
  const { frame } = read(Buffer.concat([line, Buffer.from('\n')]));
  // The file was unlinked as soon as it was open: only this process's descriptors keep it.
  expect(await readdir(spoolDir)).toEqual([]);
  // One for each long literal: the image, the text, and the JSON text whose payload is kept.
  const open = (await openSpoolFiles()).filter((file) => !before.includes(file));
  expect(open).toHaveLength(3);
  for (const file of open) expect(file).toMatch(/ \(deleted\)$/);
  frame.blobs.dispose();
  expect((await openSpoolFiles()).filter((file) => !before.includes(file))).toEqual([]);
});

test('a message cut short closes the spool file of the literal it was in', async () => {
  const before = await openSpoolFiles();
  const reader = new LineReader(
    { frame: () => undefined, noise: () => undefined, oversize: () => undefined },
    undefined,
    true,
  );
  for (let at = 0; at < line.length / 2; at += 65_536) reader.push(Buffer.from(line.subarray(at, at + 65_536)), true);
  // The image, read whole and kept for the message, and the text being read.
  expect((await openSpoolFiles()).filter((file) => !before.includes(file))).toHaveLength(2);
  reader.reset();
  expect((await openSpoolFiles()).filter((file) => !before.includes(file))).toEqual([]);
});

test('a spooled payload decodes straight from its bytes as Node decodes its string, and bad base64 is refused', () => {
  const bytes = Buffer.alloc(SPOOL_BYTES * 2 + 5);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  const decoded = (data: string): Buffer | undefined => {
    const { frame } = read(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data } })}\n`));
    const view = frame.blobs.view((frame.message.params as { data: string }).data)!;
    expect(view.spooled).toBe(true);
    try {
      const shape = base64Pieces(view);
      // Each piece copied as it comes: the decoder's two buffers take turns.
      return shape && Buffer.concat(Array.from(decodePieces(shape, 100_000), (piece) => Buffer.from(piece)));
    } catch (error) {
      if (error instanceof NotBase64Error) return undefined;
      throw error;
    } finally {
      frame.blobs.dispose();
    }
  };
  for (const data of [
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bytes.toString('base64').replace(/=+$/, ''),
  ])
    expect(decoded(data)!.equals(bytes)).toBe(true);
  const valid = bytes.toString('base64');
  const middle = SPOOL_BYTES + 4;
  for (const broken of [
    `${valid.slice(0, middle)}!${valid.slice(middle + 1)}`,
    `${valid.slice(0, middle)}=${valid.slice(middle + 1)}`,
  ])
    expect(decoded(broken)).toBeUndefined();
});

describe('the pipeline stores a spooled payload as it stores one in memory', () => {
  async function offload(spool: boolean, result: CallToolResult): Promise<{ sha256: string; bytes: Buffer }> {
    const restore = configureSpool({ minBytes: spool ? SPOOL_BYTES : Number.MAX_SAFE_INTEGER });
    const storeDir = await mkdtemp(join(dir, 'store-'));
    const store = new ArtifactStore({ dir: storeDir, maxArtifactBytes: 0, quotaBytes: 0, ttlMs: 0 }, silentLogger);
    try {
      await store.init();
      const pipeline = new ResultPipeline(
        new RuleBook({ pipeline: { keepInline: { imageMaxBytes: 0 } }, rules: [], servers: [] }),
        store,
        silentLogger,
      );
      const { frame } = read(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n`));
      const input = frame.message.result as unknown as CallToolResult;
      // The store spools where it keeps its temporary files.
      expect(await openSpoolFiles(join(storeDir, '.tmp'))).toHaveLength(spool ? 1 : 0);
      const output = frame.blobs.deliver(
        await pipeline.process(input, { server: 's', tool: 't', owner: 'o' }, frame.blobs),
      );
      const [artifact] = output._meta![ARTIFACTS_META_KEY] as { uri: string; sha256: string; path: string }[];
      return { sha256: artifact.sha256, bytes: await readFile(artifact.path) };
    } finally {
      store.close();
      restore();
    }
  }

  test('an image block', async () => {
    const result: CallToolResult = {
      content: [{ type: 'image', mimeType: 'image/png', data: image.toString('base64') }],
    };
    const [spooled, inMemory] = [await offload(true, result), await offload(false, result)];
    expect(spooled.sha256).toBe(sha256(image));
    expect(inMemory.sha256).toBe(spooled.sha256);
    expect(spooled.bytes.equals(image) && inMemory.bytes.equals(image)).toBe(true);
  });

  test('a base64 PDF in a JSON text block', async () => {
    const text = JSON.stringify({ name: 'report', format: 'pdf', content: document.toString('base64') });
    const result: CallToolResult = { content: [{ type: 'text', text }] };
    const [spooled, inMemory] = [await offload(true, result), await offload(false, result)];
    expect(spooled.sha256).toBe(sha256(document));
    expect(inMemory.sha256).toBe(spooled.sha256);
    expect(spooled.bytes.equals(document) && inMemory.bytes.equals(document)).toBe(true);
  });
});
