// The event guard on its own, in real headless Chromium: the dialog Chrome shows only after a real user
// gesture (beforeunload) cannot be raised through a capability call, so this test clicks the page itself
// (a trusted CDP input event) before the page tries to leave.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '../../src/logger.js';
import { launchBrowser, navigate, type LaunchedBrowser } from '../../src/upstreams/abp/browser.js';
import { BrowserEventGuard } from '../../src/upstreams/abp/guard.js';

const LEAVING_PAGE = `<!doctype html><html><head><title>leaving</title></head><body style="height:600px">
<script>
  addEventListener('beforeunload', (event) => { event.preventDefault(); event.returnValue = 'unsaved work'; });
  window.leave = () => { location.href = '/next'; };
</script></body></html>`;

let server: Server;
let base: string;
let launched: LaunchedBrowser;
const lost: string[] = [];
let guard: BrowserEventGuard;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(req.url === '/next' ? '<!doctype html><title>next</title><p>next page</p>' : LEAVING_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  launched = await launchBrowser(
    { executablePath: process.env.CHROME_PATH || undefined, headless: true, timeoutMs: 30_000 },
    silentLogger,
  );
  guard = new BrowserEventGuard(
    launched.browser,
    launched.page,
    { downloadTimeoutMs: 5000, evaluateTimeoutMs: 10_000, onPageLost: (reason) => lost.push(reason) },
    silentLogger,
  );
  await guard.attach();
  await navigate(launched.page, `${base}/`, 30_000);
  await guard.pageReady();
});

afterAll(async () => {
  await guard?.detach();
  await launched?.close();
  await new Promise((resolve) => server?.close(resolve));
});

test('a beforeunload dialog during a call is accepted, so the page can leave, and is reported', async () => {
  const { page } = launched;
  // Chrome shows beforeunload only to a page the user has interacted with.
  await page.mouse.click(200, 200);
  await guard.armForCall();
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.evaluate('window.leave()')]);
  const { dialogs } = await guard.collect();
  expect(dialogs).toEqual([{ type: 'beforeunload', message: '', action: 'accepted' }]);
  expect(await page.title()).toBe('next');
  expect(lost).toEqual([]);
});

test('alert, confirm and prompt raised outside any call are answered too, and the next call starts clean', async () => {
  const { page } = launched;
  const answers = await page.evaluate('[alert("a"), confirm("c"), prompt("p", "default")]');
  // alert returns undefined, which comes back from the page as null inside an array.
  expect(answers).toEqual([null, true, null]);
  await guard.armForCall();
  expect((await guard.collect()).dialogs).toEqual([]);
});
