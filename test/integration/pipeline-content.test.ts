// MCP's own binary content kinds (image, audio, embedded resources) from real servers:
// server-everything over stdio and the big-result fixture; keepInline for small images.
import sharp from 'sharp';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { CallToolResult, ContentBlock, ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING_ENTRY, FIXTURES, NODE, connectDirect, type StdioConnection } from '../helpers/fixtures.js';
import { artifactMeta, call, links, onlyLink, readBlob, sha256, summaries, texts } from '../helpers/pipeline.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';

const everything = { name: 'everything', command: NODE, args: [EVERYTHING_ENTRY, 'stdio'] };
const big = { name: 'big', command: NODE, args: [FIXTURES.bigResult, '--name', 'big'] };
/** Every image and audio block stored, whatever its size: what is kept inline is the keepInline tests' part. */
const STORE_ALL_MEDIA = { pipeline: { keepInline: { imageMaxBytes: 0, audioMaxBytes: 0 } } };

/** The result with each embedded blob as its text, times of day masked (server-everything stamps its blobs). */
function withoutTime(result: CallToolResult): unknown {
  return JSON.parse(
    JSON.stringify(result, (key, value: unknown) =>
      key === 'blob' && typeof value === 'string'
        ? Buffer.from(value, 'base64')
            .toString('utf8')
            .replace(/\d{1,2}:\d{2}:\d{2}( [AP]M)?/, 'TIME')
        : value,
    ),
  );
}

function imageOf(result: CallToolResult): ImageContent {
  const image = result.content.find((b): b is ImageContent => b.type === 'image');
  if (!image) throw new Error('no image block');
  return image;
}

describe('server-everything over stdio', () => {
  let proxy: ProxyUnderTest;
  let direct: StdioConnection;
  beforeAll(async () => {
    [proxy, direct] = await Promise.all([
      startProxy(testConfig([everything], STORE_ALL_MEDIA)),
      connectDirect(NODE, [EVERYTHING_ENTRY, 'stdio']),
    ]);
  });
  afterAll(async () => {
    await proxy?.close();
    await direct?.close();
  });

  test('get-tiny-image: the image block is replaced; the stored bytes are the decoded image', async () => {
    const straight = await call(direct.client, 'get-tiny-image');
    const image = imageOf(straight);
    const result = await call(proxy.client, 'get-tiny-image');
    expect(result.content.some((b) => b.type === 'image')).toBe(false);
    const link = onlyLink(result);
    expect(link.mimeType).toBe('image/png');
    // The text blocks around the image are kept, in order.
    const straightTexts = texts(straight);
    expect(texts(result)[0]).toBe(straightTexts[0]);
    expect(texts(result).at(-1)).toBe(straightTexts.at(-1));
    expect(summaries(result)[0]).toMatch(/^Dimensions: \d+x\d+$/m);

    const { bytes, mimeType } = await readBlob(proxy.client, link.uri);
    expect(mimeType).toBe('image/png');
    expect(sha256(bytes)).toBe(sha256(Buffer.from(image.data, 'base64')));
  });

  // Its blob is 56 bytes: a summary and a link would take more room than it does (it grew from 400 to 1,133 bytes).
  test('get-resource-reference (Blob): the small embedded blob passes as it came', async () => {
    const args = { resourceType: 'Blob', resourceId: 2 };
    const result = await call(proxy.client, 'get-resource-reference', args);
    const straight = await call(direct.client, 'get-resource-reference', args);
    // The blob holds the time of day it was made: the rest is compared as is.
    expect(withoutTime(result)).toEqual(withoutTime(straight));
    expect(result.content.map((b) => b.type)).toEqual(['text', 'resource', 'text']);
    expect(artifactMeta(result)).toEqual([]);
  });

  test('gzip-file-as-resource: the gzip artifact decompresses to the text that was sent', async () => {
    // Hashes, so the gzip stays large enough to be worth storing (repeated words would shrink to a few bytes).
    const text = Array.from({ length: 60 }, (_, i) => `line ${String(i).padStart(2, '0')}: ${sha256(String(i))}`)
      .join('\n')
      .padEnd(3000, '.')
      .slice(0, 3000);
    expect(text).toHaveLength(3000);
    const result = await call(proxy.client, 'gzip-file-as-resource', {
      name: 'x.txt.gz',
      data: `data:text/plain;base64,${Buffer.from(text).toString('base64')}`,
      outputType: 'resource',
    });
    const link = onlyLink(result);
    expect(link.mimeType).toBe('application/gzip');
    expect(link.uri).toMatch(/\.gz$/);
    const [meta] = artifactMeta(result);
    expect(gunzipSync(await readFile(meta.path)).toString('utf8')).toBe(text);
    const { bytes } = await readBlob(proxy.client, link.uri);
    expect(gunzipSync(bytes).toString('utf8')).toBe(text);
  });

  test('get-structured-content: the SDK client validates the result against the advertised schema', async () => {
    const { tools } = await proxy.client.listTools();
    const tool = tools.find((t) => t.name === 'get-structured-content')!;
    expect((tool.outputSchema as { type?: string }).type).toBe('object');
    const result = await call(proxy.client, 'get-structured-content', { location: 'Chicago' });
    expect(result).toEqual(await call(direct.client, 'get-structured-content', { location: 'Chicago' }));
    expect(result.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
  });
});

describe('big-result fixture', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startProxy(testConfig([big], STORE_ALL_MEDIA));
  });
  afterAll(() => proxy?.close());

  test('big-image 5 MB: the client gets under 2 KB of JSON, the file holds the whole PNG', async () => {
    const result = await call(proxy.client, 'big-image', { mb: 5 });
    expect(JSON.stringify(result).length).toBeLessThan(2048);
    const link = onlyLink(result);
    expect(link).toMatchObject({ mimeType: 'image/png', size: 5 * 1024 * 1024 });
    const file = await readFile(artifactMeta(result)[0].path);
    expect(file.length).toBe(5 * 1024 * 1024);
    expect(file.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(file.subarray(-8, -4).toString('latin1')).toBe('IEND');
    expect(summaries(result)[0]).toMatch(/^Dimensions: 1x1$/m);
  });

  test('big-embedded text: stored as text/plain', async () => {
    const result = await call(proxy.client, 'big-embedded', { mb: 0.5, kind: 'text' });
    expect(result.content.some((b) => b.type === 'resource')).toBe(false);
    const link = onlyLink(result);
    expect(link).toMatchObject({ mimeType: 'text/plain', size: 524_288 });
    expect(await readFile(artifactMeta(result)[0].path, 'utf8')).toBe('y'.repeat(524_288));
    expect(JSON.stringify(result).length).toBeLessThan(3000);
  });

  test('big-embedded blob: stored as application/octet-stream with the exact bytes', async () => {
    const result = await call(proxy.client, 'big-embedded', { mb: 0.25, kind: 'blob' });
    const link = onlyLink(result);
    expect(link).toMatchObject({ mimeType: 'application/octet-stream', size: 262_144 });
    const expected = Buffer.alloc(262_144, Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
    expect(sha256(await readFile(artifactMeta(result)[0].path))).toBe(sha256(expected));
  });

  test('mixed: image, audio and blob are extracted; short text, the small text resource and the resource_link pass unchanged', async () => {
    const direct = await connectDirect(NODE, [FIXTURES.bigResult, '--name', 'big']);
    try {
      const straight = await call(direct.client, 'mixed', { kb: 4 });
      const result = await call(proxy.client, 'mixed', { kb: 4 });
      const kinds = result.content.map((b) => b.type);
      expect(kinds).toEqual([
        'text',
        'text',
        'resource_link',
        'text',
        'resource_link',
        'resource',
        'text',
        'resource_link',
        'resource_link',
      ]);
      const same = (b: ContentBlock) =>
        b.type === 'resource' ||
        (b.type === 'text' && b.text === 'mixed result') ||
        (b.type === 'resource_link' && b.uri.startsWith('big://'));
      expect(result.content.filter(same)).toEqual([straight.content[0], straight.content[3], straight.content[5]]);
      const stored = links(result).filter((l) => l.uri.startsWith('artifact://'));
      expect(stored.map((l) => l.mimeType)).toEqual(['image/png', 'audio/wav', 'application/octet-stream']);
      expect(artifactMeta(result).map((m) => m.source)).toEqual(['content[1]', 'content[2]', 'content[4]']);
      for (const [i, index] of [1, 2].entries()) {
        const original = Buffer.from((straight.content[index] as { data: string }).data, 'base64');
        expect(artifactMeta(result)[i].sha256).toBe(sha256(original));
      }
    } finally {
      await direct.close();
    }
  });
});

describe('what vision and audio models still see (keepInline, by default)', () => {
  let proxy: ProxyUnderTest;
  let direct: StdioConnection;
  beforeAll(async () => {
    [proxy, direct] = await Promise.all([
      startProxy(testConfig([everything, big])),
      connectDirect(NODE, [EVERYTHING_ENTRY, 'stdio']),
    ]);
  });
  afterAll(async () => {
    await proxy?.close();
    await direct?.close();
  });

  const images = (result: CallToolResult) =>
    result.content.filter((b) => b.type === 'image') as { data: string; mimeType: string }[];

  test('an image within 1 MiB and 1568 px passes as it came, and so does short audio', async () => {
    expect(await call(proxy.client, 'everything__get-tiny-image')).toEqual(await call(direct.client, 'get-tiny-image'));
    const mixed = await call(proxy.client, 'big__mixed', { kb: 4 });
    expect(mixed.content.map((b) => b.type)).toEqual(expect.arrayContaining(['image', 'audio']));
  });

  test('an image too wide is stored, and shown scaled down to 1568 px next to the link to the full one', async () => {
    const result = await call(proxy.client, 'big__wide-image', { width: 6000, height: 4000 });
    expect(result.content.map((b) => b.type)).toEqual(['text', 'text', 'image', 'resource_link']);
    const [shown] = images(result);
    const size = await sharp(Buffer.from(shown!.data, 'base64')).metadata();
    expect([size.width, size.height]).toEqual([1568, 1045]);
    expect(texts(result)[1]).toBe('Shown below scaled down to 1568x1045 (the file is 6000x4000).');
    expect(summaries(result)[0]).toMatch(/^Dimensions: 6000x4000$/m);
    const stored = await readFile(artifactMeta(result)[0]!.path);
    expect((await sharp(stored).metadata()).width).toBe(6000);
  });

  test('an image over 1 MiB is stored whole; what is shown fits in 1 MiB', async () => {
    const result = await call(proxy.client, 'big__big-image', { mb: 3 });
    expect(onlyLink(result)).toMatchObject({ mimeType: 'image/png', size: 3 * 1024 * 1024 });
    const [shown] = images(result);
    expect(Buffer.from(shown!.data, 'base64').length).toBeLessThanOrEqual(1024 * 1024);
  });

  test('audio over 128 KiB is stored', async () => {
    const result = await call(proxy.client, 'big__big-audio', { mb: 1 });
    expect(result.content.some((b) => b.type === 'audio')).toBe(false);
    expect(onlyLink(result)).toMatchObject({ mimeType: 'audio/wav' });
  });
});
