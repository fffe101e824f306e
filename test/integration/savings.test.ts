// What the proxy saved, seen three ways from one real sidecar run (the built CLI over HTTP, a big-result upstream):
// Prometheus counters on /metrics, the savings page beside the gallery in headless Chromium (DOM asserted, no CSP
// violation, a screenshot kept), and `mcp-offload stats` reading the run's audit log and artifact store.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import puppeteer, { type Browser } from 'puppeteer-core';
import { galleryHtml } from '../../src/http/gallery.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { leftovers, runCli, startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
/** Kept for a person to look at (the test does not compare pixels). */
export const SCREENSHOT = join(tmpdir(), 'mcp-offload-savings-page.png');

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-savings-'));
const artifactDir = join(dir, 'artifacts');
const auditLog = join(dir, 'audit.log');
let cli: CliProcess;
let base: string;
let browser: Browser;

beforeAll(async () => {
  cli = startCli([
    '--http',
    '127.0.0.1:0',
    '--artifact-dir',
    artifactDir,
    '--name',
    'big',
    '--',
    NODE,
    FIXTURES.bigResult,
  ]);
  [, base] = (await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m)) as unknown as [
    string,
    string,
  ];
  const client = new Client({ name: 'savings-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  await client.callTool({ name: 'big-image', arguments: { mb: 2 } });
  await client.callTool({ name: 'big-image', arguments: { mb: 1 } });
  await client.callTool({ name: 'size-of', arguments: { data: 'abc' } });
  await client.close();
  browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

describe('savings while the sidecar runs', () => {
  test('/metrics counts what the upstream sent and what the client got, in bytes and estimated tokens', async () => {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const value = (name: string, tool: string) =>
      Number(new RegExp(`^${name}\\{server="big",tool="${tool}"\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
    const sent = value('mcp_offload_upstream_bytes_total', 'big-image');
    const got = value('mcp_offload_client_bytes_total', 'big-image');
    expect(sent).toBeGreaterThan(3 * 1024 * 1024);
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(sent / 100);
    expect(value('mcp_offload_upstream_tokens_total', 'big-image')).toBeGreaterThanOrEqual(sent / 4);
    expect(value('mcp_offload_client_tokens_total', 'size-of')).toBeGreaterThan(0);
    expect(value('mcp_offload_client_bytes_total', 'size-of')).toBe(
      value('mcp_offload_upstream_bytes_total', 'size-of'),
    );
  });

  test('the savings page, in headless Chromium: totals, a row per tool, plots over time, no CSP violation', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => (m.type() === 'error' || m.type() === 'warn') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
    page.on('request', (r) => !r.url().startsWith(base) && problems.push(`elsewhere: ${r.url()}`));
    await page.setViewport({ width: 1400, height: 900 });
    const response = await page.goto(`${base}/savings`, { waitUntil: 'load' });
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toMatch(
      /^default-src 'none'; img-src 'self'; style-src 'nonce-/,
    );
    const text = (selector: string) => page.$eval(selector, (el) => el.textContent);
    const shown = {
      title: await page.title(),
      sent: await text('#sent b'),
      saved: await text('#saved b'),
      artifacts: await text('#artifacts b'),
      rows: await page.$$eval('tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent))),
      lines: await page.$$eval('svg path.line', (paths) =>
        paths.map((p) => ({
          label: p.getAttribute('data-label'),
          steps: (p.getAttribute('d') ?? '').split('V').length - 1,
          width: (p as unknown as { getBBox(): { width: number } }).getBBox().width,
        })),
      ),
      // The stylesheet applied (a nonce it did not carry would have been refused): the cards are laid out in a row.
      cardsDisplay: await page.$eval(
        '.cards',
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { display: string } }).getComputedStyle(el).display,
      ),
      galleryLink: await page.$eval('header a', (a) => a.getAttribute('href')),
    };
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(shown.title).toBe('Savings · mcp-offload');
    expect(shown.sent).toMatch(/MB$/);
    expect(Number(shown.saved!.replace('%', ''))).toBeGreaterThanOrEqual(99);
    expect(shown.artifacts).toBe('2');
    expect(shown.rows[0]).toEqual([
      'big / big-image',
      '2',
      expect.stringMatching(/MB$/),
      expect.any(String),
      expect.any(String),
      expect.any(String),
      expect.stringMatching(/^(99|100)%$/),
      expect.stringMatching(/^2 \(3(\.0)? MB\)$/),
    ]);
    expect(shown.rows.map((r) => r[0])).toContain('big / size-of');
    expect(shown.lines.map((l) => l.label)).toEqual(['upstreams sent', 'clients got', 'artifacts']);
    // Three calls: a step on each bytes line for each; a step for each of the two artifacts.
    expect(shown.lines.map((l) => l.steps)).toEqual([3, 3, 2]);
    expect(shown.lines.every((l) => l.width > 100)).toBe(true);
    expect(shown.cardsDisplay).toBe('flex');
    expect(shown.galleryLink).toBe('artifacts');
    expect(problems).toEqual([]);
  });

  test('the gallery links to it', () => {
    const html = galleryHtml({ records: [], filter: {}, access: {}, hrefFor: () => '', nonce: 'n' });
    expect(html).toContain('<a href="savings">Savings</a>');
  });
});

describe('mcp-offload stats, after the run', () => {
  beforeAll(async () => {
    await cli.stop();
    writeFileSync(auditLog, cli.stderr());
  });

  test('--json: calls and bytes from the audit log, artifacts from the store, per server and tool', async () => {
    const run = await runCli(['stats', '--artifact-dir', artifactDir, '--audit-log', auditLog, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      tools: Array<Record<string, unknown>>;
      totals: Record<string, number>;
    };
    const image = report.tools.find((t) => t.tool === 'big-image')!;
    expect(image).toMatchObject({ server: 'big', calls: 2, artifacts: 2, artifactBytes: 3 * 1024 * 1024 });
    expect(image.upstreamBytes as number).toBeGreaterThan(3 * 1024 * 1024);
    expect(image.upstreamTokens).toBeGreaterThanOrEqual((image.upstreamBytes as number) / 4);
    expect(image.clientBytes as number).toBeLessThan((image.upstreamBytes as number) / 100);
    expect(report.tools.find((t) => t.tool === 'size-of')).toMatchObject({ calls: 1, artifacts: 0 });
    expect(report.totals.calls).toBe(3);
  });

  test('on a terminal: a table, one row per tool and the totals', async () => {
    const run = await runCli(['stats', '--artifact-dir', artifactDir, '--audit-log', auditLog]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^server \/ tool\s+calls\s+upstream sent\s+~tokens\s+client got\s+~tokens\s+saved\s+artifacts$/,
    );
    expect(lines.find((l) => l.startsWith('big / big-image'))).toMatch(/\s2\s.*\s(99|100)%\s+2 \(3(\.0)? MB\)$/);
    expect(lines.find((l) => l.startsWith('total'))).toMatch(/^total\s+3\s/);
  });

  test('without an audit log, the store alone: artifacts, no calls; a missing log is an error', async () => {
    const run = await runCli(['stats', '--artifact-dir', artifactDir, '--json']);
    expect(JSON.parse(run.stdout).totals).toMatchObject({ calls: 0, artifacts: 2 });
    const missing = await runCli(['stats', '--artifact-dir', artifactDir, '--audit-log', join(dir, 'nope.log')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^mcp-offload stats: .*nope\.log/m);
  });
});
