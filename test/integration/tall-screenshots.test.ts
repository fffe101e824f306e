// Full-page screenshots of long pages from real browser servers (chrome-devtools-mcp and @playwright/mcp, both
// driving headless chromium): the preview is the first screenful at full width, readable, not a strip a few
// pixels wide; the stored file is the whole page, byte for byte what the server sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { CallToolResult, ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { resolveExecutable } from '../../src/upstreams/abp/browser.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { artifactMeta, call, links, sha256, texts } from '../helpers/pipeline.js';
import { chromeDevtools, playwright } from '../helpers/third-party.js';
import { chromiumProcesses } from '../helpers/abp-server.js';

let proxy: ProxyUnderTest;
let site: http.Server;
let base = '';
const outputDir = mkdtempSync(path.join(tmpdir(), 'mcp-offload-playwright-'));

/**
 * A page `height` px tall: `/dense/<height>` lines of text all the way down; `/sparse/<height>` a line every
 * 400 px (chrome-devtools-mcp sends a screenshot over about 2 MB as a file path instead of an image).
 */
function page(kind: string, height: number): string {
  const every = kind === 'sparse' ? 400 : 24;
  const lines = Array.from(
    { length: Math.floor((height - 72) / every) },
    (_, n) =>
      `<p style="margin:0;height:${every}px">Line ${n + 1}: quarterly figures for the northern region, all in thousands.</p>`,
  );
  return (
    '<!doctype html><body style="margin:0;font:16px/24px sans-serif">' +
    '<h1 style="margin:0;height:72px;line-height:72px">Quarterly report</h1>' +
    `<div style="height:${height - 72}px;overflow:hidden">${lines.join('')}</div></body>`
  );
}

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const [, kind = 'dense', height = '100'] = (req.url ?? '').split('/');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(kind, Number(height)));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const chromium = resolveExecutable(undefined);
  proxy = await startProxy(testConfig([chromeDevtools(chromium), playwright(chromium, outputDir)]));
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => site.close(() => resolve()));
  rmSync(outputDir, { recursive: true, force: true });
  // The servers' browsers end with them.
  expect(chromiumProcesses()).toEqual([]);
});

function imageOf(result: CallToolResult): ImageContent {
  const image = result.content.find((b): b is ImageContent => b.type === 'image');
  if (!image) throw new Error(`no image block in ${JSON.stringify(result).slice(0, 1000)}`);
  return image;
}

/** The whole page as stored, and the preview as shown, measured. */
async function shapes(result: CallToolResult) {
  const [meta] = artifactMeta(result);
  if (!meta) throw new Error(`nothing stored: ${JSON.stringify(result).slice(0, 1000)}`);
  const stored = await readFile(meta!.path);
  expect(sha256(stored)).toBe(meta!.sha256);
  expect(links(result).map((link) => link.uri)).toEqual([meta!.uri]);
  const full = await sharp(stored).metadata();
  const preview = imageOf(result);
  const shown = await sharp(Buffer.from(preview.data, 'base64')).metadata();
  return { full, shown, base64: preview.data.length };
}

test.each([
  [
    'chrome-devtools',
    'sparse',
    'chrome-devtools__navigate_page',
    'chrome-devtools__take_screenshot',
    { fullPage: true },
  ],
  [
    'playwright',
    'dense',
    'playwright__browser_navigate',
    'playwright__browser_take_screenshot',
    { fullPage: true, type: 'png' },
  ],
] as const)(
  '%s: a 1280x20000 full-page screenshot (%s text) is previewed by its first screen at full width (it was 100x1568)',
  async (_server, kind, navigate, screenshot, args) => {
    await call(proxy.client, navigate, { url: `${base}/${kind}/20000` });
    const result = await call(proxy.client, screenshot, args);
    const { full, shown, base64 } = await shapes(result);
    expect(full).toMatchObject({ width: 1280, height: 20000 });
    // The top 1600 px (1.25 times the width) scaled to the 1568 px edge limit: text stays about full size.
    expect(shown).toMatchObject({ width: 1254, height: 1568 });
    expect(base64).toBeLessThanOrEqual(256 * 1024);
    expect(texts(result)).toContain(
      'Shown below: the top 1600 px of the 20000 px tall image (1280x20000), the first of 13 screens, ' +
        'scaled to 1254x1568. The file holds the whole image.',
    );
  },
  120_000,
);
