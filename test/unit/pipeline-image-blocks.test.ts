// An image block's base64 string is decoded piece by piece as the store writes it (payload-data.ts base64Stream); the
// forms that only show part-way (a line break) are decoded whole after all, and what is not base64 stays as it was.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { decodeStringPieces, NotBase64Error, unbrokenSize } from '../../src/codec/base64.js';
import { silentLogger } from '../../src/logger.js';
import { ARTIFACTS_META_KEY, ResultPipeline } from '../../src/pipeline/pipeline.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import type { Result } from '../../src/pipeline/types.js';
import { padTo, png } from './detect-fixtures.js';

let dir: string;
let store: ArtifactStore;
let pipeline: ResultPipeline;
const call = { server: 'pics', tool: 'render', owner: 'session' };

/** A 2x2 PNG padded with noise to 2.5 MiB, so its base64 spans several pieces of 1 Mi characters. */
const PICTURE = padTo(png(2, 2), 2.5 * 1024 * 1024);
const BASE64 = PICTURE.toString('base64');

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'image-blocks-'));
  store = new ArtifactStore({ dir, maxArtifactBytes: 50_000_000, quotaBytes: 0, ttlMs: 0 }, silentLogger);
  await store.init();
  pipeline = new ResultPipeline(new RuleBook({ pipeline: {}, rules: [], servers: [] }), store, silentLogger);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function stored(data: string): Promise<Buffer | undefined> {
  const result = { content: [{ type: 'image', mimeType: 'image/png', data }] } as Result;
  const processed = await pipeline.process(result, call);
  const artifacts = processed._meta?.[ARTIFACTS_META_KEY] as Array<{ uri: string }> | undefined;
  if (!artifacts) {
    expect(processed).toBe(result);
    return undefined;
  }
  expect(artifacts).toHaveLength(1);
  return store.read(artifacts[0]!.uri);
}

describe('an image block of base64', () => {
  it('on one line: stored byte for byte', async () => {
    expect((await stored(BASE64))?.equals(PICTURE)).toBe(true);
  });

  it.each([
    ['wrapped at 76 characters with CRLF (MIME)', BASE64.replace(/.{76}/g, '$&\r\n')],
    ['wrapped at 64 characters with LF (PEM)', BASE64.replace(/.{64}/g, '$&\n')],
    ['ending with a line break', `${BASE64}\n`],
    // Two lines, the second the shorter (isFullyBase64 wants the lines before the last of one width), and a length
    // base64 can have: the break shows only in the second piece, after the first was written.
    ['with one blank line past the first piece', `${BASE64.slice(0, 2_000_000)}\r\n\r\n${BASE64.slice(2_000_000)}`],
  ])('%s: stored byte for byte', async (_form, data) => {
    expect((await stored(data))?.equals(PICTURE)).toBe(true);
  });

  it('with a character base64 has not, past the first piece: left as it was, nothing stored', async () => {
    const data = `${BASE64.slice(0, 1_500_000)}*${BASE64.slice(1_500_001)}`;
    expect(await stored(data)).toBeUndefined();
    expect((await readdir(dir, { recursive: true })).filter((name) => !name.startsWith('.'))).toEqual([]);
  });
});

describe('decodeStringPieces', () => {
  it('gives the bytes of a string in windows, in order, whatever the length', () => {
    for (const length of [1, 2, 3, 786_431, 786_432, 786_433, 2 * 786_432 + 5]) {
      const bytes = randomBytes(length);
      for (const text of [bytes.toString('base64'), bytes.toString('base64url')]) {
        // Copied as they come: a window is used again for the piece after next (PieceSource).
        const pieces: Buffer[] = [];
        for (const piece of decodeStringPieces(text, unbrokenSize(text)!)) pieces.push(Buffer.from(piece));
        expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
        expect(pieces.every((piece) => piece.length <= 786_432)).toBe(true);
      }
    }
  });

  it('throws NotBase64Error at a piece a character was skipped in', () => {
    const text = randomBytes(786_432 * 2).toString('base64');
    const broken = `${text.slice(0, 1_200_000)} ${text.slice(1_200_001)}`;
    expect(() => [...decodeStringPieces(broken, unbrokenSize(broken)!)]).toThrow(NotBase64Error);
  });

  it('unbrokenSize: undefined for lengths and paddings base64 cannot have', () => {
    expect(unbrokenSize('')).toBeUndefined();
    expect(unbrokenSize('==')).toBeUndefined();
    expect(unbrokenSize('AAAAA')).toBeUndefined();
    expect(unbrokenSize('AAA=A')).toBeUndefined();
    expect(unbrokenSize('AAAAAA=')).toBeUndefined();
    expect(unbrokenSize('AAAAAA==')).toBe(4);
    expect(unbrokenSize('AAAAAA')).toBe(4);
  });
});
