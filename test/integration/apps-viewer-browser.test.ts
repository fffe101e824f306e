// The artifact viewer (an MCP App) in headless Chromium: a test page hosts it with ext-apps' own host bridge
// (AppBridge, test/fixtures/apps-host/host.js) in a sandboxed iframe of another origin, under the restrictive policy
// SEP-1865 prescribes for views that declare no domains (no connect-src, images from data: only). The view's requests
// go through the bridge to an MCP client of the real proxy (a Gateway in this process, in front of the tableau and
// dashboard fixtures), which is also where the page's HTML comes from (resources/read of ui://mcp-offload/...).
// The view shows a stored image, a JSON document and a PDF; screenshots go to a temporary directory.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import puppeteer, { type Browser, type Frame, type Page } from 'puppeteer-core';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { tableau } from '../helpers/pipeline.js';
import { ALL_CLIENT_CAPABILITIES, connectAs, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';

const VIEWER = 'ui://mcp-offload/artifact-viewer';
const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
/** SEP-1865's policy for a view that declares no domains, as a host applies it. */
const VIEW_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'self'",
].join('; ');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = mkdtempSync(join(tmpdir(), 'mcp-offload-viewer-'));
const HOST_SCRIPT = fileURLToPath(new URL('../fixtures/apps-host/host.js', import.meta.url));
/** Everything but the serverResources capability: the view reads through artifact_read. */
const TOOLS_ONLY = { serverTools: {} };
const WITH_RESOURCES = { serverTools: {}, serverResources: {} };

let proxy: ProxyUnderTest;
let host: Client;
let browser: Browser;
let web: Server;
let base: string;
/** The view, as its host serves it (another origin than the page's). */
let viewUrl: string;
/** Every URL the browser asked for. */
const requested: string[] = [];

/** What the host page offers the test (test/fixtures/apps-host/host.js). */
interface HostPage {
  showInView(url: string, tool: string, args: unknown, result: unknown, capabilities: object): Promise<number>;
}

/** In the view: how many PDF pages are drawn. */
const renderedPages = `document.querySelectorAll('canvas.pdf-page[data-rendered="true"]').length`;

const uriOf = (result: CallToolResult) =>
  ((result._meta?.['mcp-offload/artifacts'] ?? []) as { uri: string; mimeType: string }[]).map((a) => a.uri);

beforeAll(async () => {
  proxy = await startProxy(
    testConfig([tableau(), { name: 'dashboard', command: NODE, args: [FIXTURES.app] }], {
      artifacts: { viewer: { enabled: true, toolName: 'artifact_view', linkTools: ['tableau/download_*'] } },
    }),
  );
  host = await connectAs(
    proxy.gateway,
    { name: 'test-host', version: '1' },
    {
      capabilities: { ...ALL_CLIENT_CAPABILITIES, ...UI },
    },
  );
  const [{ text: page }] = (await host.readResource({ uri: VIEWER })).contents as { text: string }[];
  const bridge = (
    await build({ entryPoints: [HOST_SCRIPT], bundle: true, format: 'iife', platform: 'browser', write: false })
  ).outputFiles[0]!.text;
  web = createServer((req, res) => {
    if (req.url === '/view') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': VIEW_POLICY });
      return res.end(page);
    }
    if (req.url === '/host.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(bridge);
    if (req.url === '/favicon.ico') return res.writeHead(204).end();
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end('<!doctype html><html><body style="margin:8px"><script src="/host.js"></script></body></html>');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const { port } = web.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  viewUrl = `http://localhost:${port}/view`;
  browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => web?.close(resolve));
  await host?.close();
  await proxy?.close();
});

/** A fresh host page, its console and failures watched, with `mcpRequest` answered by the proxy's client. */
async function hostPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 940, height: 900 });
  const problems: string[] = [];
  page.on('console', (message) => {
    // The sandbox SEP-1865 asks of hosts (allow-scripts allow-same-origin), which Chromium remarks on: the host's.
    if (message.text().startsWith('An iframe which has both allow-scripts and allow-same-origin')) return;
    if (message.type() === 'error' || message.type() === 'warn') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  page.on('request', (request) => requested.push(request.url()));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  await page.exposeFunction('mcpRequest', async (method: string, params: Record<string, unknown>) => {
    if (method === 'resources/read') return host.readResource(params as { uri: string });
    if (method === 'tools/call') return host.callTool(params as { name: string });
    throw new Error(`the test host relays no ${method}`);
  });
  await page.goto(base, { waitUntil: 'load' });
  return { page, problems };
}

/** Shows a tool's result in a new view on `page`; resolves with the view's frame. */
async function show(
  page: Page,
  tool: string,
  args: Record<string, unknown>,
  result: CallToolResult,
  capabilities: object = WITH_RESOURCES,
): Promise<Frame> {
  const before = page.frames().length;
  await page.evaluate(
    (url, name, input, answer, caps) => (globalThis as unknown as HostPage).showInView(url, name, input, answer, caps),
    viewUrl,
    tool,
    args,
    result as unknown as Record<string, unknown>,
    capabilities,
  );
  const frames = page.frames().filter((f) => f.url() === viewUrl);
  expect(page.frames().length).toBeGreaterThan(before);
  return frames[frames.length - 1]!;
}

const call = async (name: string, args: Record<string, unknown> = {}) =>
  (await host.callTool({ name, arguments: args })) as CallToolResult;

describe('the artifact viewer in Chromium, hosted with AppBridge', () => {
  test('an image: drawn from the stored bytes, zoomed with the buttons', async () => {
    const [uri] = uriOf(await call('dashboard__chart'));
    expect(uri).toMatch(/\.png$/);
    const { page, problems } = await hostPage();
    const view = await show(page, 'artifact_view', { uri }, await call('artifact_view', { uri }));
    const image = await view.waitForSelector('img.zoomable');
    await view.waitForFunction("document.querySelector('img.zoomable').naturalWidth > 0");
    expect(await image!.evaluate((img) => [img.naturalWidth, img.naturalHeight])).toEqual([1800, 700]);
    const label = () => view.$eval('.zoom-label', (e) => e.textContent);
    expect(await label()).toMatch(/% \(fit\)$/);
    const fitWidth = await image!.evaluate((img) => img.getBoundingClientRect().width);
    expect(fitWidth).toBeLessThan(1800);
    await (await view.$('button[title="Actual size"]'))!.click();
    expect(await label()).toBe('100%');
    expect(await image!.evaluate((img) => img.getBoundingClientRect().width)).toBe(1800);
    await (await view.$('button[title="Zoom out"]'))!.click();
    expect(await label()).toBe('75%');
    expect(await view.$eval('.artifact-name', (e) => e.textContent)).toMatch(/^chart_[0-9a-f]{12}\.png$/);
    await (await view.$('button[title="Fit to the width"]'))!.click();
    await page.screenshot({ path: join(SHOTS, 'image.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  test('JSON: a tree, and a JSONPath filter that finds what the document holds', async () => {
    const [uri] = uriOf(await call('tableau__huge_json', { items: 2000 }));
    expect(uri).toMatch(/\.json$/);
    const { page, problems } = await hostPage();
    const view = await show(page, 'artifact_view', { uri }, await call('artifact_view', { uri }));
    await view.waitForSelector('.json-tree details.json-node[open]');
    expect(await view.$eval('.json-tree > details > summary', (s) => s.textContent)).toBe('$ [2000]');
    // The first item, opened: its members as leaves.
    await (await view.$('.json-tree > details > details > summary'))!.click();
    await view.waitForSelector('.json-tree > details > details[open] > .json-leaf');
    const leaves = await view.$$eval('.json-tree > details > details[open] > .json-leaf', (els) =>
      els.map((e) => e.textContent),
    );
    expect(leaves).toEqual(['id: 0', 'name: "item 0"', 'region: "north"', 'revenue: 0']);
    await page.screenshot({ path: join(SHOTS, 'json-tree.png'), fullPage: true });
    // West and over 95000: computed here from the fixture's own rule, then asked of the view.
    const expected = Array.from({ length: 2000 }, (_, i) => i)
      .filter((i) => i % 4 === 3 && (i * 7919) % 100000 > 95000)
      .map((i) => `"item ${i}"`);
    expect(expected.length).toBeGreaterThan(1);
    await view.type('input.jsonpath', "$[?(@.region == 'west' && @.revenue > 95000)].name");
    await page.keyboard.press('Enter');
    await view.waitForFunction("/match/.test(document.querySelector('.json-view .match-count').textContent)");
    expect(await view.$eval('.json-view .match-count', (e) => e.textContent)).toBe(`${expected.length} matches`);
    const found = await view.$$eval('.json-matches > .json-leaf .json-string', (els) => els.map((e) => e.textContent));
    expect(found).toEqual(expected);
    await page.screenshot({ path: join(SHOTS, 'json.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  test("a PDF from a tool linked to the viewer: the view reads the result's artifacts and draws every page", async () => {
    const tools = (await host.listTools()).tools;
    const linked = tools.find((t) => t.name === 'tableau__download_workbook')!;
    expect(linked._meta).toEqual({ ui: { resourceUri: VIEWER } });
    const result = await call('tableau__download_workbook', { workbook_id: 'wb-1' });
    const [uri] = uriOf(result);
    expect(uri).toMatch(/\.pdf$/);
    const { page, problems } = await hostPage();
    const view = await show(page, 'tableau__download_workbook', { workbook_id: 'wb-1' }, result);
    await view.waitForFunction(`${renderedPages} === 3`, { timeout: 20_000 });
    expect(await view.$eval('.pdf-info', (e) => e.textContent)).toBe('3 pages');
    // Drawn, not blank: the first page has dark pixels (its text) on white.
    const dark = await view.$eval('canvas.pdf-page', (canvas) => {
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, 300, 200);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! < 100 && data[i + 3]! > 0) count++;
      return count;
    });
    expect(dark).toBeGreaterThan(50);
    await page.screenshot({ path: join(SHOTS, 'pdf.png'), fullPage: true });
    // Zoomed in: every page drawn again, a quarter wider.
    const width = () => view.$eval('canvas.pdf-page', (canvas) => canvas.getBoundingClientRect().width);
    const before = await width();
    await (await view.$('button[title="Zoom in"]'))!.click();
    await view.waitForFunction(
      `${renderedPages} === 3 && document.querySelector('canvas.pdf-page').getBoundingClientRect().width > ${before}`,
      { timeout: 20_000 },
    );
    expect((await width()) / before).toBeCloseTo(1.25, 1);
    expect(problems).toEqual([]);
  });

  test('a host that relays tool calls only: the view reads the bytes with artifact_read, a range at a time', async () => {
    const result = await call('tableau__huge_json', { items: 1500 });
    const [uri] = uriOf(result);
    const { page, problems } = await hostPage();
    const view = await show(page, 'artifact_view', { uri }, await call('artifact_view', { uri }), TOOLS_ONLY);
    await view.waitForSelector('.json-tree details.json-node[open]');
    expect(await view.$eval('.json-tree > details > summary', (s) => s.textContent)).toBe('$ [1500]');
    // The raw text, as stored, is the upstream's text byte for byte.
    const stored = (await host.readResource({ uri })).contents[0] as { text: string };
    expect(await view.$eval('.json-view .text-view pre', (e) => e.textContent)).toBe(stored.text);
    expect(problems).toEqual([]);
  });

  test('the views fetched nothing: only the host page, its script and the view itself were loaded', () => {
    // data: URIs are the images the view draws from bytes it has; the favicon is the host page's.
    const fetched = requested.filter((url) => !url.startsWith('data:') && url !== `${base}/favicon.ico`);
    expect(new Set(fetched)).toEqual(new Set([`${base}/`, `${base}/host.js`, viewUrl]));
  });

  test('a result without artifacts, and an error, are said in words', async () => {
    const { page } = await hostPage();
    const empty = await show(page, 'tableau__download_workbook', {}, { content: [{ type: 'text', text: 'nothing' }] });
    await empty.waitForSelector('.status');
    expect(await empty.$eval('.status', (e) => e.textContent)).toBe('Nothing was stored from this result.');
    const failed = await show(page, 'artifact_view', {}, await call('artifact_view', { uri: 'artifact://nope/x.png' }));
    await failed.waitForSelector('.status.error');
    expect(await failed.$eval('.status.error', (e) => e.textContent)).toBe(
      'no artifact artifact://nope/x.png in this session',
    );
  });
});
