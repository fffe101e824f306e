// The proxy in front of chrome-devtools-mcp from npm, driving headless chromium: a browser agent keeps
// seeing its screenshots, and one too big for a vision model is stored whole and shown by a preview.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { resolveExecutable } from '../../src/upstreams/abp/browser.js';
import { imageFacts } from '../../src/pipeline/facts/image.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { artifactMeta, blocks, call, links, sha256, texts } from '../helpers/pipeline.js';
import { chromeDevtools } from '../helpers/third-party.js';
import { chromiumProcesses } from '../helpers/abp-server.js';

let proxy: ProxyUnderTest;
let site: http.Server;
let base = '';

beforeAll(async () => {
  // A page of a given height: /tall is 5000 px, taller than a vision model takes.
  site = http.createServer((req, res) => {
    const height = req.url === '/tall' ? 5000 : 100;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<body style="margin:0"><h1>Quarterly</h1><div style="height:${height}px;background:#36c"></div></body>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  proxy = await startProxy(testConfig([chromeDevtools(resolveExecutable(undefined))]));
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => site.close(() => resolve()));
  // The server's browser ends with it.
  expect(chromiumProcesses()).toEqual([]);
});

function images(result: Awaited<ReturnType<typeof call>>): ImageContent[] {
  return blocks(result).filter((block): block is ImageContent => block.type === 'image');
}

test('a viewport screenshot (1280x720) reaches the client inline, nothing stored', async () => {
  await call(proxy.client, 'navigate_page', { url: `${base}/short` });
  const result = await call(proxy.client, 'take_screenshot');
  const [image] = images(result);
  expect(image!.mimeType).toBe('image/png');
  expect(imageFacts(Buffer.from(image!.data, 'base64'))).toMatchObject({ width: 1280, height: 720 });
  expect(artifactMeta(result)).toEqual([]);
  expect(blocks(result).map((block) => block.type)).toEqual(['text', 'image']);
}, 60_000);

test('a full-page screenshot too tall to read whole is stored whole and shown by its first screen', async () => {
  await call(proxy.client, 'navigate_page', { url: `${base}/tall` });
  const result = await call(proxy.client, 'take_screenshot', { fullPage: true });
  const [meta] = artifactMeta(result);
  const stored = await readFile(meta!.path);
  expect(sha256(stored)).toBe(meta!.sha256);
  const full = imageFacts(stored);
  expect(full.width).toBe(1280);
  expect(full.height).toBeGreaterThan(5000);

  // The top 1600 px at full width (1.25 times the width), scaled to the 1568 px edge limit.
  const [preview] = images(result);
  const shown = imageFacts(Buffer.from(preview!.data, 'base64'));
  expect(shown).toEqual({ width: 1254, height: 1568 });
  expect(preview!.data.length).toBeLessThanOrEqual(256 * 1024);
  expect(texts(result)).toContain(
    `Shown below: the top 1600 px of the ${full.height} px tall image (1280x${full.height}), ` +
      `the first of ${Math.ceil(full.height! / 1600)} screens, scaled to 1254x1568. The file holds the whole image.`,
  );
  expect(links(result).map((link) => link.uri)).toEqual([meta!.uri]);
}, 60_000);

test('the page snapshot, text under every budget, passes unchanged', async () => {
  await call(proxy.client, 'navigate_page', { url: `${base}/short` });
  const result = await call(proxy.client, 'take_snapshot');
  expect(texts(result).join('\n')).toMatch(/heading "Quarterly"/);
  expect(artifactMeta(result)).toEqual([]);
}, 60_000);
