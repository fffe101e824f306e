// Connections over time, through the gateway in real headless Chromium: named browser sessions side by side
// (a web app and extensions), capability changes, a page that closes itself, reconnecting, the binary-priority
// rule, and a persistent profile whose site data survives a disconnect.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  ABP_EXTENSION_DIR,
  STORE_EXTENSION_ID,
  chromiumProcesses,
  startAbpServer,
  type AbpServer,
} from '../helpers/abp-server.js';
import {
  MINI_APP_DIR,
  browserCount,
  call,
  savedBytes,
  serveDirectory,
  startAbpGateway,
  textBlocks,
  waitFor,
  type AbpGateway,
} from '../helpers/abp-gateway.js';

let app: AbpServer;
let miniApp: Awaited<ReturnType<typeof serveDirectory>>;
let proxy: AbpGateway;
let listChanged = 0;
const profiles = mkdtempSync(join(tmpdir(), 'mcp-offload-abp-profiles-'));
const extensionCache = mkdtempSync(join(tmpdir(), 'mcp-offload-abp-extensions-'));

beforeAll(async () => {
  app = await startAbpServer();
  miniApp = await serveDirectory(MINI_APP_DIR);
  proxy = await startAbpGateway({
    abp: { userDataDir: profiles, extensionStoreUrl: app.storeUrl, extensionCacheDir: extensionCache },
    setup: (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++),
  });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await app?.close();
  await miniApp?.close();
  expect(chromiumProcesses()).toEqual([]);
  rmSync(profiles, { recursive: true, force: true });
  rmSync(extensionCache, { recursive: true, force: true });
});

const toolNames = async () => (await proxy.client.listTools()).tools.map((t) => t.name);
const docOf = (result: Parameters<typeof savedBytes>[0]) =>
  JSON.parse(savedBytes(result).toString('utf8')) as Record<string, unknown>;

describe('two named sessions at once', () => {
  beforeAll(async () => {
    expect((await call(proxy.client, 'abp_connect', { url: `${app.url}/` })).isError).toBeFalsy();
    const ext = await call(proxy.client, 'abp_connect', { extensionPath: ABP_EXTENSION_DIR, session: 'ext' });
    expect(textBlocks(ext)[0]).toMatch(
      /^Connected to ABP fixture extension 1\.0\.0 at chrome-extension:\/\/[a-p]{32}\/abp-app\.html \(browser session "ext"/,
    );
  }, 60_000);

  test('both are listed by status, each with its own browser and capabilities', async () => {
    const status = textBlocks(await call(proxy.client, 'abp_status'))[0]!;
    expect(status).toMatch(/^Session "default": connected\n {2}App: ABP fixture app/);
    expect(status).toMatch(
      /\n\nSession "ext": connected\n {2}App: ABP fixture extension 1\.0\.0 \(dev\.mcp-offload\.fixture-extension\)\n {2}Page: chrome-extension:\/\/[a-p]{32}\/abp-app\.html \(extension [a-p]{32}\)/,
    );
    expect(textBlocks(await call(proxy.client, 'abp_status', { session: 'ext' }))[0]).toMatch(/^Session "ext"/);
    expect(browserCount(chromiumProcesses())).toBe(2);
    expect(await toolNames()).toEqual(expect.arrayContaining(['abp_text_reverse', 'abp_text_upper', 'abp_ext_info']));
  });

  test('a capability only one session has goes to that session; `session` picks one explicitly', async () => {
    expect(docOf(await call(proxy.client, 'abp_text_upper', { text: 'abc' }))).toEqual({ text: 'ABC' });
    const info = docOf(await call(proxy.client, 'abp_call', { capability: 'ext.info', session: 'ext' }));
    expect(info).toEqual({ origin: expect.stringMatching(/^chrome-extension:\/\/[a-p]{32}$/), page: '/abp-app.html' });
    const wrong = await call(proxy.client, 'abp_call', {
      capability: 'text.reverse',
      params: { text: 'x' },
      session: 'ext',
    });
    expect(textBlocks(wrong)[0]).toBe(
      'UNKNOWN_CAPABILITY: the app in session "ext" has no capability "text.reverse". Available: text.upper, ext.info',
    );
    const missing = await call(proxy.client, 'abp_text_reverse', { text: 'x', session: 'nobody' });
    expect(textBlocks(missing)[0]).toBe(
      'NOT_CONNECTED: no ABP app is connected in session "nobody"; offered by: default',
    );
  });

  test('an extension by id comes from the configured store and is unpacked into the configured cache', async () => {
    const result = await call(proxy.client, 'abp_connect', { extensionId: STORE_EXTENSION_ID, session: 'store' });
    expect(textBlocks(result)[0]).toMatch(
      /^Connected to ABP fixture extension 1\.0\.0 at chrome-extension:\/\/[a-p]{32}\/abp-app\.html \(browser session "store"/,
    );
    expect(app.crxRequests()).toBe(1);
    expect(readdirSync(extensionCache).length).toBeGreaterThan(0);
    expect(textBlocks(await call(proxy.client, 'abp_disconnect', { session: 'store' }))[0]).toBe(
      'Disconnected session "store".',
    );
  });

  test('disconnecting one session leaves the other', async () => {
    expect(textBlocks(await call(proxy.client, 'abp_disconnect', { session: 'ext' }))[0]).toBe(
      'Disconnected session "ext".',
    );
    expect(await toolNames()).not.toContain('abp_text_upper');
    expect(await toolNames()).toContain('abp_text_reverse');
    expect(browserCount(chromiumProcesses())).toBe(1);
  });
});

describe('the app changes', () => {
  test('a capability added at run time becomes a tool, announced with list_changed', async () => {
    const before = listChanged;
    expect(docOf(await call(proxy.client, 'abp_caps_add', { name: 'dynamic.echo' }))).toEqual({
      added: 'dynamic.echo',
    });
    await waitFor(() => listChanged > before);
    expect(await toolNames()).toContain('abp_dynamic_echo');
    expect(docOf(await call(proxy.client, 'abp_dynamic_echo', { value: 7 }))).toEqual({ echo: { value: 7 } });
  });

  test('a page that closes itself gives a clear error on the next call', async () => {
    expect(docOf(await call(proxy.client, 'abp_page_close', {}))).toEqual({ closing: true });
    await waitFor(() => proxy.logs().some((r) => r.msg === 'the ABP page is gone'));
    const next = await call(proxy.client, 'abp_text_reverse', { text: 'x' });
    expect(next.isError).toBe(true);
    expect(textBlocks(next)[0]).toMatch(/^The ABP app's page is gone: .+\. Connect again to go on\.$/);
    expect(textBlocks(await call(proxy.client, 'abp_status'))[0]).toMatch(/^Session "default": page lost \(/);
  });

  test('connecting a connected session disconnects it first: one browser, the new app', async () => {
    const result = await call(proxy.client, 'abp_connect', { url: miniApp.url });
    expect(textBlocks(result)[0]).toMatch(/^Connected to ABP mini fixture 1\.0\.0/);
    expect(browserCount(chromiumProcesses())).toBe(1);
    const names = await toolNames();
    expect(names).toContain('abp_store_set');
    expect(names).not.toContain('abp_text_reverse');
  });
});

describe('binary data in the answer beats what the guard intercepted', () => {
  test('an app that prints and returns its own PDF gets its own PDF saved, and only that', async () => {
    const both = await call(proxy.client, 'abp_export_both', {});
    expect(textBlocks(both).filter((t) => t.startsWith('File saved:'))).toHaveLength(1);
    const own = "%PDF-1.4\n% the app's own PDF\n%%EOF\n";
    expect(textBlocks(both)[0]).toMatch(
      new RegExp(
        `^File saved: .+\\.pdf\nType: application/pdf\nSize: ${own.length} bytes\nMetadata: \\{"printed":true\\}`,
      ),
    );
    expect(savedBytes(both).toString('latin1')).toBe(own);
    // The same print without the app's PDF: the guard's page.pdf() is the file.
    const printed = await call(proxy.client, 'abp_export_both', { binary: false });
    expect(savedBytes(printed).subarray(0, 5).toString()).toBe('%PDF-');
    expect(savedBytes(printed).toString('latin1')).not.toBe(own);
    expect(textBlocks(printed)[0]).toContain('Metadata: {"data":{"printed":true}}');
  });
});

describe('a persistent profile', () => {
  test('site data survives a disconnect and a new browser; each session has its own folder', async () => {
    await call(proxy.client, 'abp_store_set', { key: 'login', value: 'token-123' });
    expect(textBlocks(await call(proxy.client, 'abp_disconnect'))[0]).toBe('Disconnected session "default".');
    expect(chromiumProcesses()).toEqual([]);
    await call(proxy.client, 'abp_connect', { url: miniApp.url });
    expect(docOf(await call(proxy.client, 'abp_store_get', { key: 'login' }))).toEqual({
      key: 'login',
      value: 'token-123',
    });
    expect(existsSync(join(profiles, 'default'))).toBe(true);
    expect(existsSync(join(profiles, 'ext'))).toBe(true);

    // Another session has another profile: nothing stored there.
    await call(proxy.client, 'abp_connect', { url: miniApp.url, session: 'other' });
    expect(docOf(await call(proxy.client, 'abp_store_get', { key: 'login', session: 'other' }))).toEqual({
      key: 'login',
      value: null,
    });
  });
});
