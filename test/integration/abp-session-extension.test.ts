// Extensions as ABP apps: an unpacked one (extensionPath), one "downloaded from the store" (extensionId,
// served as CRX3 by the test server) with its cache, and the errors when there is nothing to load.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { unpackedExtensionId } from '../../src/upstreams/abp/extension.js';
import {
  ABP_EXTENSION_DIR,
  STORE_EXTENSION_ID,
  chromiumProcesses,
  startAbpServer,
  type AbpServer,
} from '../helpers/abp-server.js';
import { callOptions, newSession } from '../helpers/abp-session.js';

let server: AbpServer;
let cacheDir: string;
beforeAll(async () => {
  server = await startAbpServer();
  cacheDir = await mkdtemp(path.join(os.tmpdir(), 'mcp-offload-abp-ext-cache-'));
});
afterAll(async () => {
  await server.close();
  await rm(cacheDir, { recursive: true, force: true });
});

const EXTENSION_APP = { id: 'dev.mcp-offload.fixture-extension', name: 'ABP fixture extension', version: '1.0.0' };

describe('extensionPath', () => {
  const { session } = newSession();
  afterAll(() => session.disconnect());

  it('loads the unpacked extension, finds its id, opens abp-app.html and synthesizes the manifest', async () => {
    const info = await session.connect({ extensionPath: ABP_EXTENSION_DIR });
    expect(info.extensionId).toBe(await unpackedExtensionId(ABP_EXTENSION_DIR));
    expect(info.pageUrl).toBe(`chrome-extension://${info.extensionId}/abp-app.html`);
    expect(info.app).toEqual(EXTENSION_APP);
    expect(info.sessionId).toMatch(/^ext-/);
    expect(info.manifest).toEqual({
      abp: '0.1',
      app: EXTENSION_APP,
      capabilities: [
        {
          name: 'text.upper',
          description: 'Upper-case a string',
          available: true,
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        },
        { name: 'ext.info', description: 'Where this app runs', available: true },
      ],
    });
    expect(info.capabilities).toEqual(info.manifest.capabilities);
  }, 60_000);

  it('calls capabilities in the extension page', async () => {
    expect((await session.call('text.upper', { text: 'abc' }, callOptions())).response).toEqual({
      success: true,
      data: { text: 'ABC' },
    });
    const where = await session.call('ext.info', {}, callOptions());
    expect(where.response.data).toEqual({
      origin: `chrome-extension://${session.info!.extensionId}`,
      page: '/abp-app.html',
    });
  });
});

describe('extensionId', () => {
  it('downloads the CRX from the store URL, unpacks it into the cache, and reuses the cache next time', async () => {
    const { session } = newSession({ extensionStoreUrl: server.storeUrl, extensionCacheDir: cacheDir });
    const before = server.crxRequests();
    const info = await session.connect({ extensionId: STORE_EXTENSION_ID, abpPage: 'abp-app.html' });
    expect(info.app).toEqual(EXTENSION_APP);
    expect(server.crxRequests()).toBe(before + 1);
    expect(existsSync(path.join(cacheDir, STORE_EXTENSION_ID, 'manifest.json'))).toBe(true);
    expect((await session.call('text.upper', { text: 'store' }, callOptions())).response.data).toEqual({
      text: 'STORE',
    });
    await session.disconnect();

    await session.connect({ extensionId: STORE_EXTENSION_ID });
    expect(server.crxRequests()).toBe(before + 1);
    await session.disconnect();
    expect(chromiumProcesses()).toEqual([]);
  }, 90_000);

  it('without network: a clear error naming the URL, and nothing started', async () => {
    const emptyCache = await mkdtemp(path.join(os.tmpdir(), 'mcp-offload-abp-ext-cache-'));
    try {
      const { session } = newSession({
        extensionStoreUrl: 'http://127.0.0.1:9/service/crx?id={id}',
        extensionCacheDir: emptyCache,
      });
      await expect(session.connect({ extensionId: STORE_EXTENSION_ID })).rejects.toThrow(
        `The extension could not be downloaded from http://127.0.0.1:9/service/crx?id=${STORE_EXTENSION_ID}`,
      );
      expect(chromiumProcesses()).toEqual([]);
      expect(existsSync(path.join(emptyCache, STORE_EXTENSION_ID))).toBe(false);
    } finally {
      await rm(emptyCache, { recursive: true, force: true });
    }
  });

  it('an id the store does not have, and an id that is not one', async () => {
    const { session } = newSession({ extensionStoreUrl: server.storeUrl, extensionCacheDir: cacheDir });
    const unknown = 'ponmlkjihgfedcbaponmlkjihgfedcba';
    await expect(session.connect({ extensionId: unknown })).rejects.toThrow(
      `The extension could not be downloaded from ${server.url}/crx/${unknown}: HTTP 404`,
    );
    await expect(session.connect({ extensionId: '../../etc' })).rejects.toThrow(
      'Not a Chrome extension id: "../../etc"',
    );
    expect(chromiumProcesses()).toEqual([]);
  });
});

describe('extension errors', () => {
  it('an extensionPath without a manifest.json', async () => {
    const { session } = newSession();
    await expect(session.connect({ extensionPath: '/nonexistent/extension' })).rejects.toThrow(
      'No unpacked extension at /nonexistent/extension: there is no manifest.json in it',
    );
  });

  it('an abpPage the extension does not have: window.abp never appears, everything is rolled back', async () => {
    const { session } = newSession({ abpWaitMs: 500 });
    await expect(session.connect({ extensionPath: ABP_EXTENSION_DIR, abpPage: 'missing.html' })).rejects.toThrow(
      /chrome-extension:\/\/[a-p]{32}\/missing\.html/,
    );
    expect(session.connected).toBe(false);
    expect(chromiumProcesses()).toEqual([]);
  }, 60_000);

  it('an abpPage outside the extension is refused', async () => {
    const { session } = newSession();
    await expect(
      session.connect({ extensionPath: ABP_EXTENSION_DIR, abpPage: 'https://example.com/x.html' }),
    ).rejects.toThrow('abpPage must be a page inside the extension, not https://example.com/x.html');
    expect(chromiumProcesses()).toEqual([]);
  }, 60_000);
});
