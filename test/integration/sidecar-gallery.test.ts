import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import {
  TOKENS,
  bearer,
  connectHttp,
  linksOf,
  startSidecar,
  textsOf,
  type HttpClient,
  type Sidecar,
} from '../helpers/sidecar.js';

const [ALICE, BOB] = TOKENS as [(typeof TOKENS)[0], (typeof TOKENS)[0]];
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Everything the page complains about: console errors (CSP violations among them), page errors, failed or refused
 * loads.
 */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn')
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return problems;
}

describe('sidecar: the artifact gallery in headless Chromium', () => {
  let sidecar: Sidecar;
  let browser: Browser;
  let alice: HttpClient;
  let bob: HttpClient;
  /** Alice's artifact ids in call order. */
  const ids: string[] = [];
  let bobId: string;
  let galleryLink: string;

  beforeAll(async () => {
    sidecar = await startSidecar();
    [alice, bob] = await Promise.all([connectHttp(sidecar.base, ALICE.token), connectHttp(sidecar.base, BOB.token)]);
    for (const tag of ['first', 'second'])
      ids.push(linksOf(await alice.client.callTool({ name: 'image', arguments: { tag } }))[0]!.slice(11));
    const pdf = await alice.client.callTool({
      name: 'file',
      arguments: { filename: 'report <b>.pdf', mimeType: 'application/pdf', text: '%PDF-1.4 report' },
    });
    ids.push(linksOf(pdf)[0]!.slice(11));
    bobId = linksOf(await bob.client.callTool({ name: 'image', arguments: { tag: 'bob' } }))[0]!.slice(11);
    galleryLink = /^Gallery: (\S+)$/m.exec(
      textsOf(await alice.client.callTool({ name: 'artifact_list', arguments: {} })),
    )![1]!;
    browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([alice, bob].map((c) => c?.close()));
    await sidecar?.close();
  });

  const shownIds = (page: Page) => page.$$eval('li.artifact', (items) => items.map((li) => li.getAttribute('data-id')));

  test("with the token and session, it lists the session's artifacts newest first, with thumbnails, and no console errors", async () => {
    const page = await browser.newPage();
    const problems = watch(page);
    await page.setExtraHTTPHeaders({ ...bearer(ALICE.token), 'mcp-session-id': alice.sessionId });
    const response = await page.goto(`${sidecar.base}/artifacts`, { waitUntil: 'load' });
    expect(response!.status()).toBe(200);
    const csp = response!.headers()['content-security-policy']!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    expect(await shownIds(page)).toEqual([...ids].reverse());
    expect(await shownIds(page)).not.toContain(bobId);
    // Thumbnails for the two PNGs, loaded through signed links. They load lazily, which the page's load event does
    // not wait for: a loaded machine had one still loading when it was looked at.
    await page.waitForFunction(
      "Array.from(document.querySelectorAll('li.artifact img')).every((img) => img.complete)",
      {
        timeout: 10_000,
      },
    );
    const images = await page.$$eval('li.artifact img', (imgs) =>
      imgs.map((img) => ({ ok: img.complete && img.naturalWidth === 1600, src: img.getAttribute('src') })),
    );
    expect(images).toHaveLength(2);
    for (const image of images) {
      expect(image.ok).toBe(true);
      expect(image.src).toMatch(/^artifacts\/art\/image_[0-9a-f]{12}\.png\?expires=\d+&sig=/);
    }
    const text = await page.$eval('main', (main) => main.textContent ?? '');
    expect(text).toContain('application/pdf');
    expect(text).toContain('art / image');
    expect(text).toContain('art / file');
    expect(await page.$$eval('a.download', (links) => links.length)).toBe(3);
    // The filename with markup is text, not markup.
    expect(await page.$$eval('li.artifact b', (bold) => bold.length)).toBe(0);
    expect(await page.$$eval('script', (scripts) => scripts.length)).toBe(0);
    // The style block applied: the grid is laid out (a CSP refusal would log an error and leave the default display).
    expect(await page.evaluate('getComputedStyle(document.querySelector("ul")).display')).toBe('grid');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the filter narrows by tool and by server', async () => {
    const page = await browser.newPage();
    const problems = watch(page);
    await page.setExtraHTTPHeaders({ ...bearer(ALICE.token), 'mcp-session-id': alice.sessionId });
    await page.goto(`${sidecar.base}/artifacts`, { waitUntil: 'load' });
    await page.select('select[name="tool"]', 'file');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type="submit"]')]);
    expect(new URL(page.url()).searchParams.get('tool')).toBe('file');
    expect(await shownIds(page)).toEqual([ids[2]]);
    await page.goto(`${sidecar.base}/artifacts?server=nope`, { waitUntil: 'load' });
    expect(await shownIds(page)).toEqual([]);
    await page.goto(`${sidecar.base}/artifacts?server=art&tool=image`, { waitUntil: 'load' });
    expect(await shownIds(page)).toEqual([ids[1], ids[0]]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the signed gallery link from artifact_list opens without any header, and a download link works from it', async () => {
    const page = await browser.newPage();
    const problems = watch(page);
    await page.goto(galleryLink, { waitUntil: 'load' });
    expect(await shownIds(page)).toEqual([...ids].reverse());
    // Filtering keeps the signed access (hidden fields).
    await page.select('select[name="tool"]', 'image');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type="submit"]')]);
    expect(await shownIds(page)).toEqual([ids[1], ids[0]]);
    const href = await page.$eval('li.artifact a.preview', (a) => (a as unknown as { href: string }).href);
    expect(problems).toEqual([]);
    // The page's CSP allows no fetch from script, so open the link as a person would.
    const opened = await page.goto(href, { waitUntil: 'load' });
    // 304: the thumbnail is in the cache, revalidated by its ETag.
    expect([200, 304]).toContain(opened!.status());
    expect(await page.evaluate('document.images[0]?.naturalWidth')).toBe(1600);
    await page.close();
  });

  test('an HTML artifact opened in the browser does not run its script in our origin', async () => {
    const result = await alice.client.callTool({
      name: 'file',
      arguments: {
        filename: 'page.html',
        mimeType: 'text/html',
        text: '<html><body><script>document.title = "pwned"; localStorage.x = 1</script>hello</body></html>',
      },
    });
    const link = /^Download: (\S+)$/m.exec(textsOf(result))![1]!;
    const page = await browser.newPage();
    await (await page.createCDPSession()).send('Browser.setDownloadBehavior', { behavior: 'deny' });
    // An attachment is downloaded (here: refused), never rendered: the navigation is aborted.
    const outcome = await page.goto(link, { waitUntil: 'load' }).then(
      () => 'rendered',
      (error: Error) => error.message,
    );
    expect(outcome).toMatch(/ERR_ABORTED/);
    expect(await page.title()).not.toBe('pwned');
    await page.close();
  });

  test('without credentials it is 401; a tampered gallery link is refused', async () => {
    expect((await fetch(`${sidecar.base}/artifacts`)).status).toBe(401);
    const tampered = galleryLink.replace(/scope=[^&]+/, 'scope=token%3Abob');
    expect((await fetch(tampered)).status).toBe(403);
    // The token without a session: in the default scope (principal) the token owns what its sessions made, so it
    // sees Alice's artifacts, and never Bob's.
    const tokenOnly = await fetch(`${sidecar.base}/artifacts`, { headers: bearer(ALICE.token) });
    expect(tokenOnly.status).toBe(200);
    const html = await tokenOnly.text();
    for (const id of ids) expect(html).toContain(id);
    expect(html).not.toContain(bobId);
  });
});
