// Offloading only what is worth it, and previews within every budget (issue 33, items 1 and 2): the preview
// fixture's small shapes and images over stdio, straight and through the proxy, as a default client and as
// Claude Code (whose whole-result budget is 100,000 bytes).
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { CallToolResult, ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING_ENTRY, NODE, connectDirect, type StdioConnection } from '../helpers/fixtures.js';
import { artifactMeta, call, links, summaries, texts } from '../helpers/pipeline.js';
import { connectAs, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';

const PREVIEW = fileURLToPath(new URL('../fixtures/preview-server.mjs', import.meta.url));
const preview = { name: 'preview', command: NODE, args: [PREVIEW] };
const everything = { name: 'everything', command: NODE, args: [EVERYTHING_ENTRY, 'stdio'] };
/** The default preview budget: 256 KiB of base64. */
const PREVIEW_MAX = 256 * 1024;

const bytesOf = (result: CallToolResult) => Buffer.byteLength(JSON.stringify(result));

function imageOf(result: CallToolResult): ImageContent {
  const image = result.content.find((b): b is ImageContent => b.type === 'image');
  if (!image) throw new Error(`no image block in ${JSON.stringify(result).slice(0, 500)}`);
  return image;
}

async function pixelsOf(image: ImageContent) {
  const meta = await sharp(Buffer.from(image.data, 'base64')).metadata();
  return { format: meta.format, width: meta.width, height: meta.height, channels: meta.channels };
}

const config = testConfig([preview, everything], {
  rules: [
    // A floor of 0 lets a tiny blob be stored: what then keeps the result as it came is the size check alone.
    { server: 'preview', tool: 'small-blob', settings: { minOffloadBytes: 0 } },
  ],
});
let proxy: ProxyUnderTest;
let direct: StdioConnection;
let directEverything: StdioConnection;
beforeAll(async () => {
  [proxy, direct, directEverything] = await Promise.all([
    startProxy(config),
    connectDirect(NODE, [PREVIEW]),
    connectDirect(NODE, [EVERYTHING_ENTRY, 'stdio']),
  ]);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await direct?.close();
  await directEverything?.close();
});

describe('offload only what is worth it', () => {
  test("server-everything's 56-byte embedded blob passes as it came (it grew from 400 to 1,133 bytes)", async () => {
    const args = { resourceType: 'Blob', resourceId: 2 };
    const straight = await call(directEverything.client, 'get-resource-reference', args);
    const through = await call(proxy.client, 'everything__get-resource-reference', args);
    // The blob holds the time of day it was made (to the second): the bytes are compared with it masked.
    const masked = (result: CallToolResult) =>
      JSON.stringify(result).replace(/"blob":"[^"]*"/, (blob) => {
        const text = Buffer.from(blob.slice(8, -1), 'base64').toString('utf8');
        return `"blob":${JSON.stringify(text.replace(/\d{1,2}:\d{2}:\d{2}( [AP]M)?/, 'TIME'))}`;
      });
    expect(masked(through)).toBe(masked(straight));
    expect(artifactMeta(through)).toEqual([]);
  });

  test('a rewrite larger than the original is dropped: the result passes as it came, the artifact unreferenced', async () => {
    const straight = await call(direct.client, 'small-blob', { bytes: 56 });
    const through = await call(proxy.client, 'preview__small-blob', { bytes: 56 });
    expect(JSON.stringify(through)).toBe(JSON.stringify(straight));
    // Stored (the floor of 0 let it), but nothing the client sees names it.
    expect(await readdir(`${config.artifacts.dir}/preview`)).toEqual([expect.stringMatching(/^small-blob_.*\.bin$/)]);
  });

  test('a blob that saves room is still stored', async () => {
    const straight = await call(direct.client, 'small-blob', { bytes: 4000 });
    const through = await call(proxy.client, 'preview__small-blob', { bytes: 4000 });
    expect(artifactMeta(through)).toHaveLength(1);
    expect(bytesOf(through)).toBeLessThan(bytesOf(straight));
  });

  test('the floor is a setting: a blob under it stays inline however much it would save', async () => {
    const floored = await startProxy(
      testConfig([preview], { rules: [{ server: '*', tool: 'small-blob', settings: { minOffloadBytes: 8000 } }] }),
    );
    try {
      const straight = await call(direct.client, 'small-blob', { bytes: 4000 });
      const through = await call(floored.client, 'small-blob', { bytes: 4000 });
      expect(JSON.stringify(through)).toBe(JSON.stringify(straight));
    } finally {
      await floored.close();
    }
  });

  test('a caption beside a big image stays as it is, even where the whole result must shrink (Claude Code)', async () => {
    const claudeCode = await connectAs(proxy.gateway, { name: 'claude-code', version: '2.0.0' });
    const args = { kind: 'gray', width: 3000, height: 3000, caption: 'A screenshot.' };
    const result = await call(claudeCode, 'preview__captioned-image', args);
    expect(result.content[0]).toEqual({ type: 'text', text: 'A screenshot.' });
    expect(artifactMeta(result).map((a) => a.mimeType)).toEqual(['image/png']);
    expect(summaries(result)).toHaveLength(1);
    expect(bytesOf(result)).toBeLessThanOrEqual(100_000);
    await claudeCode.close();
  }, 60_000);

  test('many short texts over the whole-result budget stay: none is worth a summary (Claude Code)', async () => {
    const claudeCode = await connectAs(proxy.gateway, { name: 'claude-code', version: '2.0.0' });
    // 400 blocks of 300 characters: about 130,000 bytes of JSON, over Claude Code's 100,000.
    const args = { count: 400, chars: 300 };
    const through = await call(claudeCode, 'preview__many-texts', args);
    expect(JSON.stringify(through)).toBe(JSON.stringify(await call(direct.client, 'many-texts', args)));
    // Not even stored: the size net leaves texts under the floor alone.
    const files = await readdir(`${config.artifacts.dir}/preview`);
    expect(files.filter((file) => file.startsWith('many-texts'))).toEqual([]);
    await claudeCode.close();
  });
});

describe('previews within every budget', () => {
  test('a 3000x3000 grayscale PNG (2 MB of base64) is previewed gray, at the edge limit, within 256 KiB', async () => {
    const result = await call(proxy.client, 'preview__captioned-image', { kind: 'gray', width: 3000, height: 3000 });
    const image = imageOf(result);
    expect(image.data.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(await pixelsOf(image)).toMatchObject({ channels: 1, width: 1568, height: 1568 });
    expect(texts(result)).toContain('Shown below scaled down to 1568x1568 (the file is 3000x3000).');
  }, 60_000);

  test('an image repeated in structuredContent is still previewed: its copy leaves with it (read_media_file)', async () => {
    const args = { kind: 'gray', width: 3000, height: 3000, mirrored: true };
    const sent = bytesOf(await call(direct.client, 'captioned-image', args));
    const result = await call(proxy.client, 'preview__captioned-image', args);
    const image = imageOf(result);
    expect(image.data.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(await pixelsOf(image)).toMatchObject({ channels: 1, width: 1568, height: 1568 });
    // Both copies, 2 MB of base64 each, are one artifact; the result is within the default budget of 1 MiB.
    const [meta, ...more] = artifactMeta(result);
    expect(more).toEqual([]);
    expect(meta!.sources).toEqual(['content[1]', 'structuredContent.content[1].data']);
    expect(result.structuredContent).toEqual({
      content: [
        { type: 'text', text: 'A screenshot.' },
        { type: 'image', mimeType: 'image/png', data: meta!.uri },
      ],
    });
    expect(sent).toBeGreaterThan(4_000_000);
    expect(bytesOf(result)).toBeLessThanOrEqual(1_048_576);
  }, 60_000);

  test('a photographic image is previewed as JPEG, a flat one as PNG', async () => {
    const photo = imageOf(
      await call(proxy.client, 'preview__captioned-image', { kind: 'photo', width: 1200, height: 900 }),
    );
    expect(photo.mimeType).toBe('image/jpeg');
    expect(photo.data.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(await pixelsOf(photo)).toMatchObject({ format: 'jpeg', channels: 3 });
    const flat = imageOf(
      await call(proxy.client, 'preview__captioned-image', { kind: 'flat', width: 2400, height: 1600 }),
    );
    expect(flat.mimeType).toBe('image/png');
    expect(await pixelsOf(flat)).toMatchObject({ format: 'png', width: 1568, height: 1045 });
  }, 60_000);

  test('the client budget bounds the preview: as Claude Code, the whole result stays within 100,000 bytes', async () => {
    const claudeCode = await connectAs(proxy.gateway, { name: 'claude-code', version: '2.0.0' });
    const result = await call(claudeCode, 'preview__captioned-image', { kind: 'photo', width: 1200, height: 900 });
    expect(imageOf(result).mimeType).toBe('image/jpeg');
    expect(bytesOf(result)).toBeLessThanOrEqual(100_000);
    await claudeCode.close();
  }, 60_000);

  test('a page 20000 px tall is previewed by its first screenful at full width, and says so', async () => {
    const result = await call(proxy.client, 'preview__captioned-image', { kind: 'page', width: 1280, height: 20000 });
    expect(await pixelsOf(imageOf(result))).toMatchObject({ format: 'png', width: 1254, height: 1568 });
    expect(texts(result)).toContain(
      'Shown below: the top 1600 px of the 20000 px tall image (1280x20000), the first of 13 screens, ' +
        'scaled to 1254x1568. The file holds the whole image.',
    );
    expect(links(result)).toHaveLength(1);
  }, 60_000);
});
