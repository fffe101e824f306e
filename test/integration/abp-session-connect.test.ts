// Connecting that fails: every manifest problem with its documented message, a missing browser, an app
// without window.abp; each leaves no browser process and no temporary profile behind.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { launchBrowser } from '../../src/upstreams/abp/browser.js';
import { MANIFEST_LIMITS, discoverManifest } from '../../src/upstreams/abp/manifest.js';
import { chromiumProcesses, startAbpServer, type AbpServer } from '../helpers/abp-server.js';
import { callOptions, newSession } from '../helpers/abp-session.js';

let server: AbpServer;
beforeAll(async () => {
  server = await startAbpServer();
});
afterAll(() => server.close());

async function expectConnectFailure(url: string, message: string | RegExp): Promise<void> {
  const { session } = newSession();
  await expect(session.connect({ url })).rejects.toThrow(message);
  expect(session.connected).toBe(false);
  expect(session.info).toBeUndefined();
  expect(chromiumProcesses()).toEqual([]);
  await session.disconnect(); // harmless after a failed connect
}

describe('manifest failures: the documented error, and no browser left', () => {
  const v = (name: string): string => `${server.url}/variants/${name}`;

  it('a page without the link', async () => {
    await expectConnectFailure(
      v('no-link.html'),
      `No ABP manifest found: ${v('no-link.html')} has no <link rel="abp-manifest" href="..."> in its <head>`,
    );
  });

  it('a link whose rel is not exactly abp-manifest (rel is case-sensitive)', async () => {
    await expectConnectFailure(v('uppercase-rel.html'), 'No ABP manifest found');
  });

  it('a link past the first 50 KB of the head', async () => {
    await expectConnectFailure(v('big-head.html'), 'read up to </head> or the first 51200 bytes');
  });

  it('a link to a missing manifest (404)', async () => {
    await expectConnectFailure(
      v('link-404.html'),
      `Could not fetch the ABP manifest ${server.url}/variants/missing.json: HTTP 404 Not Found`,
    );
  });

  it('a manifest that is not JSON', async () => {
    await expectConnectFailure(
      v('invalid-json.html'),
      `The ABP manifest ${server.url}/variants/invalid.json is not valid JSON:`,
    );
  });

  it('a manifest without app.id', async () => {
    await expectConnectFailure(v('missing-fields.html'), 'Manifest missing required field: app.id');
  });

  it('a manifest without capabilities', async () => {
    await expectConnectFailure(v('no-capabilities.html'), 'Manifest missing required field: capabilities');
  });

  it('a manifest over 1 MB (streamed, no Content-Length)', async () => {
    await expectConnectFailure(
      v('oversize.html'),
      `The ABP manifest ${server.url}/variants/huge.json is larger than the 1048576 bytes allowed`,
    );
  });

  it('a manifest in a redirect loop', async () => {
    await expectConnectFailure(
      v('redirect-loop.html'),
      `The ABP manifest ${server.url}/variants/loop.json redirected more than 5 times`,
    );
  });

  it('a page that does not exist, a server that is not there, a URL that is not http', async () => {
    await expectConnectFailure(
      `${server.url}/nope.html`,
      `Could not fetch ${server.url}/nope.html to discover its ABP manifest: HTTP 404 Not Found`,
    );
    await expectConnectFailure(
      'http://127.0.0.1:9/',
      /Could not fetch http:\/\/127\.0\.0\.1:9\/ to discover its ABP manifest: fetch failed/,
    );
    await expectConnectFailure('file:///etc/passwd', 'Only http and https pages can be connected by URL');
    await expectConnectFailure('not a url', 'Not a valid URL: not a url');
  });

  it('a manifest that never answers times out (shortened limit)', async () => {
    await expect(discoverManifest(v('slow-manifest.html'), { ...MANIFEST_LIMITS, timeoutMs: 300 })).rejects.toThrow(
      `Fetching the ABP manifest ${server.url}/variants/slow.json timed out after 300 ms`,
    );
  });

  it('a relative href is resolved against the page, and a redirect within the limit is followed', async () => {
    const found = await discoverManifest(v('redirect-ok.html'));
    expect(found.manifestUrl).toBe(`${server.url}/variants/moved.json`);
    expect(found.manifest.app.id).toBe('dev.mcp-offload.fixture');
    expect(found.manifest.capabilities.length).toBeGreaterThan(10);
  });
});

describe('failures after the browser started are rolled back', () => {
  it('a missing browser executable: a clear error naming it, nothing started', async () => {
    const { session } = newSession({ executablePath: '/nonexistent/chrome' });
    await expect(session.connect({ url: `${server.url}/` })).rejects.toThrow(
      'The configured browser executable /nonexistent/chrome does not exist.',
    );
    expect(chromiumProcesses()).toEqual([]);
  });

  it('an app without window.abp: the wait ends with a clear error, the browser is closed, the session can connect again', async () => {
    const { session } = newSession({ abpWaitMs: 500 });
    await expect(session.connect({ url: `${server.url}/?noabp=1` })).rejects.toThrow(
      `window.abp did not appear on ${server.url}/?noabp=1 within 500 ms: the page does not implement ABP`,
    );
    expect(session.connected).toBe(false);
    expect(chromiumProcesses()).toEqual([]);
    await session.connect({ url: `${server.url}/` });
    expect((await session.call('text.reverse', { text: 'again' }, callOptions())).response.success).toBe(true);
    await expect(session.connect({ url: `${server.url}/` })).rejects.toThrow('already connected');
    await session.disconnect();
    expect(chromiumProcesses()).toEqual([]);
  }, 60_000);
});

describe('browser profiles', () => {
  it('a temporary profile is removed on close; a persistent one is kept', async () => {
    const temporary = await launchBrowser({ headless: true, timeoutMs: 30_000 }, silentLogger);
    const tempDir = temporary.profileDir;
    expect(existsSync(tempDir)).toBe(true);
    await temporary.close();
    expect(existsSync(tempDir)).toBe(false);

    const persistent = await mkdtemp(path.join(os.tmpdir(), 'mcp-offload-abp-test-profile-'));
    try {
      const launched = await launchBrowser(
        { headless: true, timeoutMs: 30_000, userDataDir: persistent },
        silentLogger,
      );
      expect(launched.profileDir).toBe(persistent);
      await launched.close();
      expect(existsSync(path.join(persistent, 'Default'))).toBe(true);
    } finally {
      await rm(persistent, { recursive: true, force: true });
    }
    expect(chromiumProcesses()).toEqual([]);
  }, 60_000);

  it('a persistent profile keeps what the app stored (logins survive) across connections', async () => {
    const profile = await mkdtemp(path.join(os.tmpdir(), 'mcp-offload-abp-test-profile-'));
    try {
      const first = newSession({ userDataDir: profile }).session;
      await first.connect({ url: `${server.url}/` });
      await first.call('storage.set', { key: 'login', value: 'alice' }, callOptions());
      await first.disconnect();
      const second = newSession({ userDataDir: profile }).session;
      await second.connect({ url: `${server.url}/` });
      expect((await second.call('storage.get', { key: 'login' }, callOptions())).response.data).toEqual({
        value: 'alice',
      });
      await second.disconnect();
      expect(existsSync(profile)).toBe(true);
    } finally {
      await rm(profile, { recursive: true, force: true });
    }
  }, 90_000);
});
