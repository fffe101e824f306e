// The browser side's pure parts: manifest link parsing and validation, CRX unpacking, executable lookup,
// capability merging and the binary-data check.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import { silentLogger } from '../../src/logger.js';
import { resolveExecutable, wellKnownBrowserPaths } from '../../src/upstreams/abp/browser.js';
import { hasBinaryData, mergeCapabilities, normalizeCapabilities } from '../../src/upstreams/abp/capabilities.js';
import { stripCrxHeader, unpackZip } from '../../src/upstreams/abp/extension-store.js';
import { extensionPageUrl } from '../../src/upstreams/abp/extension.js';
import { findManifestHref, validateManifest } from '../../src/upstreams/abp/manifest.js';
import { ABP_EXTENSION_DIR, buildCrx3 } from '../helpers/abp-server.js';

describe('findManifestHref', () => {
  it.each([
    ['<link rel="abp-manifest" href="/abp.json">', '/abp.json'],
    ['<link href="abp.json" rel="abp-manifest">', 'abp.json'],
    ["<LINK HREF='x/m.json' REL='abp-manifest' />", 'x/m.json'],
    ['<link rel=abp-manifest href=https://cdn.example/m.json>', 'https://cdn.example/m.json'],
    ['<link rel="preload abp-manifest" href="/m.json?a=1&amp;b=2">', '/m.json?a=1&b=2'],
    [
      '<link rel="stylesheet" href="/a.css"><link rel="abp-manifest" href="/first.json"><link rel="abp-manifest" href="/second.json">',
      '/first.json',
    ],
  ])('%s → %s', (html, href) => {
    expect(findManifestHref(`<head>${html}</head>`)).toBe(href);
  });

  it.each([
    ['rel is case-sensitive', '<link rel="ABP-Manifest" href="/abp.json">'],
    ['a commented-out link', '<!-- <link rel="abp-manifest" href="/abp.json"> -->'],
    ['no href', '<link rel="abp-manifest">'],
    ['another rel', '<link rel="abp-manifest-v2" href="/abp.json">'],
  ])('nothing for %s', (_what, html) => {
    expect(findManifestHref(html)).toBeUndefined();
  });
});

describe('validateManifest', () => {
  const good = { abp: '0.1', app: { id: 'a', name: 'A', version: '1' }, capabilities: [{ name: 'x.y' }] };

  it('accepts a manifest with the required fields (extra fields allowed)', () => {
    const manifest = { ...good, extra: true };
    expect(validateManifest(manifest, 'u')).toBe(manifest);
  });

  it("names every missing field in the seed's words", () => {
    expect(() => validateManifest({ app: { name: 'A' } }, 'http://h/abp.json')).toThrow(
      'Invalid ABP manifest http://h/abp.json: Manifest missing required field: abp; ' +
        'Manifest missing required field: capabilities; Manifest missing required field: app.id; ' +
        'Manifest missing required field: app.version',
    );
  });

  it('points at a bad capability by index', () => {
    expect(() =>
      validateManifest({ ...good, capabilities: [{ name: 'ok' }, { description: 'no name' }] }, 'u'),
    ).toThrow('Manifest missing required field: capabilities[1].name');
    expect(() => validateManifest({ ...good, capabilities: 'none' }, 'u')).toThrow(
      'Manifest field capabilities must be array',
    );
    expect(() => validateManifest([], 'u')).toThrow('Manifest field (root) must be object');
  });
});

describe('CRX packages', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-offload-abp-unit-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('strips a CRX3 header and unpacks the extension', async () => {
    await unpackZip(stripCrxHeader(buildCrx3(ABP_EXTENSION_DIR)), dir);
    const original = await readFile(path.join(ABP_EXTENSION_DIR, 'manifest.json'), 'utf8');
    expect(await readFile(path.join(dir, 'manifest.json'), 'utf8')).toBe(original);
  });

  it('strips a CRX2 header; a bare zip is taken as it is; anything else is refused', () => {
    const zip = zipSync({ 'manifest.json': Buffer.from('{}') });
    const crx2 = Buffer.alloc(16);
    crx2.write('Cr24', 0, 'latin1');
    crx2.writeUInt32LE(2, 4);
    crx2.writeUInt32LE(3, 8);
    crx2.writeUInt32LE(2, 12);
    const package2 = Buffer.concat([crx2, Buffer.from('KEYSG'), zip]);
    expect(Buffer.from(stripCrxHeader(package2)).equals(Buffer.from(zip))).toBe(true);
    expect(stripCrxHeader(zip)).toBe(zip);
    expect(() => stripCrxHeader(Buffer.from('<html>not found</html>'))).toThrow('not a CRX package');
    const crx4 = Buffer.from(crx2);
    crx4.writeUInt32LE(4, 4);
    expect(() => stripCrxHeader(crx4)).toThrow('unsupported CRX version 4');
  });

  it('refuses entries that would land outside the folder (zip-slip) and writes nothing', async () => {
    const evil = zipSync({ 'ok.txt': Buffer.from('ok'), '../escaped.txt': Buffer.from('evil') });
    await expect(unpackZip(evil, path.join(dir, 'ext'))).rejects.toThrow(
      'the package holds an entry outside its folder: ../escaped.txt',
    );
    expect(existsSync(path.join(dir, 'escaped.txt'))).toBe(false);
    expect(existsSync(path.join(dir, 'ext', 'ok.txt'))).toBe(false);
  });
});

describe('resolveExecutable', () => {
  const none = (): boolean => false;

  it('takes the explicit path, then CHROME_PATH, then the first well-known location that exists', () => {
    const all = (): boolean => true;
    expect(resolveExecutable('/opt/chrome', { exists: all, env: { CHROME_PATH: '/env/chrome' } })).toBe('/opt/chrome');
    expect(resolveExecutable(undefined, { exists: all, env: { CHROME_PATH: '/env/chrome' } })).toBe('/env/chrome');
    expect(
      resolveExecutable(undefined, { exists: (f) => f === '/usr/bin/google-chrome', env: {}, platform: 'linux' }),
    ).toBe('/usr/bin/google-chrome');
  });

  it('a named path that does not exist is an error, not a fallback', () => {
    expect(() => resolveExecutable('/opt/nothing', { exists: none, env: {} })).toThrow(
      'The configured browser executable /opt/nothing does not exist.',
    );
    expect(() => resolveExecutable(undefined, { exists: none, env: { CHROME_PATH: '/env/nothing' } })).toThrow(
      'CHROME_PATH is set to /env/nothing, which does not exist.',
    );
  });

  it.each(['linux', 'darwin', 'win32'] as const)(
    'nothing found on %s: the error names every place looked at',
    (platform) => {
      let message = '';
      try {
        resolveExecutable(undefined, { exists: none, env: {}, platform });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(
        'No Chrome or Chromium executable found. Looked at: the executablePath setting (not set), $CHROME_PATH (not set)',
      );
      for (const place of wellKnownBrowserPaths(platform, {})) expect(message).toContain(place);
      expect(wellKnownBrowserPaths('linux', {})).toEqual(
        expect.arrayContaining([
          '/usr/bin/chromium',
          '/usr/bin/chromium-browser',
          '/usr/bin/google-chrome',
          '/usr/bin/google-chrome-stable',
        ]),
      );
    },
  );
});

describe('capabilities', () => {
  it('normalizes listCapabilities(): missing fields absent, wrong types dropped, nameless entries ignored', () => {
    const raw = [
      { name: 'a.b', description: 'A', inputSchema: { type: 'object' }, available: true, requirements: ['gpu'] },
      { name: 'c.d', description: 3, inputSchema: 'nope', available: 'yes', deprecated: true },
      { description: 'no name' },
      'junk',
    ];
    expect(normalizeCapabilities(raw, silentLogger)).toEqual([
      { name: 'a.b', description: 'A', inputSchema: { type: 'object' }, available: true, requirements: ['gpu'] },
      { name: 'c.d', deprecated: true },
    ]);
    expect(normalizeCapabilities({ capabilities: [{ name: 'x' }] }, silentLogger)).toEqual([{ name: 'x' }]);
    expect(() => normalizeCapabilities('nope', silentLogger)).toThrow(
      'listCapabilities() did not answer an array of capabilities',
    );
  });

  it('merges: runtime fields win, manifest fields the runtime lacks stay, runtime-only added, unconfirmed marked unavailable', () => {
    const manifest = [
      { name: 'a', description: 'manifest a', inputSchema: { type: 'object' } },
      { name: 'gone', description: 'only in the manifest' },
    ];
    const runtime = [
      { name: 'new', available: true },
      { name: 'a', description: 'runtime a', available: true },
    ];
    expect(mergeCapabilities(manifest, runtime)).toEqual([
      { name: 'a', description: 'runtime a', inputSchema: { type: 'object' }, available: true },
      { name: 'gone', description: 'only in the manifest', available: false },
      { name: 'new', available: true },
    ]);
  });
});

describe('hasBinaryData', () => {
  const png = { content: 'iVBORw0KGgo=', mimeType: 'image/png', encoding: 'base64' };
  it.each([
    ['BinaryData at the top level', true, png],
    ['BinaryData one level down, with siblings', true, { image: png, width: 2 }],
    [
      'a BinaryDataReference one level down',
      true,
      { file: { downloadUrl: 'http://h/f', mimeType: 'application/pdf', size: 3 } },
    ],
    ['text as utf-8', false, { document: { content: '<p>x</p>', mimeType: 'text/html', encoding: 'utf-8' } }],
    ['BinaryData two levels down', false, { a: { b: png } }],
    ['plain JSON', false, { reversed: 'cba' }],
    ['nothing', false, undefined],
  ])('%s → %s', (_what, expected, data) => {
    expect(hasBinaryData(data)).toBe(expected);
  });
});

describe('extensionPageUrl', () => {
  const id = 'abcdefghijklmnopabcdefghijklmnop';
  it('defaults to abp-app.html and keeps pages inside the extension', () => {
    expect(extensionPageUrl(id, undefined)).toBe(`chrome-extension://${id}/abp-app.html`);
    expect(extensionPageUrl(id, '/ui/app.html?x=1')).toBe(`chrome-extension://${id}/ui/app.html?x=1`);
    expect(() => extensionPageUrl(id, 'https://example.com/')).toThrow('abpPage must be a page inside the extension');
    expect(extensionPageUrl(id, '//evil/x.html')).toBe(`chrome-extension://${id}/evil/x.html`);
    expect(extensionPageUrl(id, '../../x.html')).toBe(`chrome-extension://${id}/x.html`);
  });
});
