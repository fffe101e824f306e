import type { IncomingMessage } from 'node:http';
import { DEFAULTS } from '../../src/config/types.js';
import { idFromPath, artifactPath } from '../../src/http/artifact-paths.js';
import { BearerAuth, configuredTokens, exposureProblem, isLoopback } from '../../src/http/auth.js';
import { contentDisposition, downloadName, servedInline } from '../../src/http/content-headers.js';
import { parseRange } from '../../src/http/download.js';
import { HostCheck, hostOnly } from '../../src/http/host-check.js';
import { LinkSigner } from '../../src/http/link-signer.js';
import { estimatedTokens } from '../../src/http/metrics.js';
import { summaryText } from '../../src/pipeline/summary/describe.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('bearer tokens', () => {
  const auth = new BearerAuth([
    { name: 'a', token: 'token-a-0123456789' },
    { name: 'b', token: 'token-b-0123456789' },
  ]);
  test('names the token that matches; refuses anything else', () => {
    expect(auth.check(req({ authorization: 'Bearer token-b-0123456789' }))).toBe('b');
    expect(auth.check(req({ authorization: 'bearer token-a-0123456789' }))).toBe('a');
    for (const authorization of [
      '',
      'Bearer',
      'Bearer token-a-012345678',
      'Bearer token-a-0123456789 extra',
      'Basic dG9rZW4=',
      'token-a-0123456789',
    ]) {
      expect(auth.check(req({ authorization }))).toBeUndefined();
    }
    expect(auth.check(req({}))).toBeUndefined();
  });
  test('without tokens everyone is anonymous', () => {
    expect(new BearerAuth([]).check(req({}))).toBe('anonymous');
  });
  test('MCP_OFFLOAD_AUTH_TOKEN adds a token named "env"; short or clashing names are errors', () => {
    expect(configuredTokens(DEFAULTS.auth, { MCP_OFFLOAD_AUTH_TOKEN: 'x'.repeat(16) })).toEqual([
      { name: 'env', token: 'x'.repeat(16) },
    ]);
    expect(() => configuredTokens(DEFAULTS.auth, { MCP_OFFLOAD_AUTH_TOKEN: 'short' })).toThrow(/at least 16/);
    expect(() =>
      configuredTokens(
        { ...DEFAULTS.auth, tokens: [{ name: 'env', token: 'y'.repeat(16) }] },
        { MCP_OFFLOAD_AUTH_TOKEN: 'x'.repeat(16) },
      ),
    ).toThrow(/two auth tokens are named "env"/);
  });
});

describe('exposure', () => {
  test('loopback addresses and names', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', 'api.localhost', '::ffff:127.0.0.1'])
      expect([host, isLoopback(host)]).toEqual([host, true]);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '::ffff:10.0.0.1', '128.0.0.1'])
      expect([host, isLoopback(host)]).toEqual([host, false]);
  });
  test('beyond loopback, a token or an explicit allowUnauthenticated is needed', () => {
    expect(exposureProblem('0.0.0.0', [], DEFAULTS.auth)).toMatch(/refusing to listen on 0\.0\.0\.0/);
    expect(exposureProblem('0.0.0.0', [{ name: 'a', token: 'x'.repeat(16) }], DEFAULTS.auth)).toBeUndefined();
    expect(exposureProblem('0.0.0.0', [], { ...DEFAULTS.auth, allowUnauthenticated: true })).toBeUndefined();
    expect(exposureProblem('127.0.0.1', [], DEFAULTS.auth)).toBeUndefined();
  });
});

describe('Host and Origin', () => {
  const options = {
    ...DEFAULTS.httpOptions,
    allowedHosts: ['mcp-offload'],
    allowedOrigins: ['https://app.example.com'],
  };
  const check = new HostCheck('0.0.0.0', options, 'https://tools.example.com/offload');
  test('host names without port and brackets', () => {
    expect(hostOnly('LocalHost:8080')).toBe('localhost');
    expect(hostOnly('[::1]:8080')).toBe('::1');
    expect(hostOnly('example.com')).toBe('example.com');
  });
  test("loopback names, configured hosts and the public URL's host pass; others do not", () => {
    for (const host of ['localhost:8080', '127.0.0.1', '[::1]:1', 'mcp-offload:8080', 'tools.example.com'])
      expect([host, check.problem(req({ host }))]).toEqual([host, undefined]);
    for (const host of ['evil.com', 'evil.com:8080', '0.0.0.0:8080', ''])
      expect(check.problem(req({ host }))).toBeDefined();
  });
  test('Origin: configured origins, or an allowed host; "null" and others are refused', () => {
    const problem = (origin: string) => check.problem(req({ host: 'localhost:8080', origin }));
    expect(problem('https://app.example.com')).toBeUndefined();
    expect(problem('http://localhost:3000')).toBeUndefined();
    expect(problem('https://evil.example.com')).toMatch(/Origin/);
    expect(problem('null')).toMatch(/Origin/);
  });
  test('"*" accepts any host', () => {
    expect(
      new HostCheck('127.0.0.1', { ...DEFAULTS.httpOptions, allowedHosts: ['*'] }).problem(
        req({ host: 'anything', origin: 'http://x.y' }),
      ),
    ).toBeUndefined();
  });
  test('a specific listen address is accepted as a host', () => {
    expect(new HostCheck('10.1.2.3', DEFAULTS.httpOptions).problem(req({ host: '10.1.2.3:8080' }))).toBeUndefined();
  });
});

describe('signed links', () => {
  let now = 1_000_000_000_000;
  const signer = new LinkSigner('k'.repeat(32), 60, () => now);
  test('valid until the expiry second, then expired; any change is invalid', () => {
    const { expires, sig } = signer.sign('artifact:a/b.png');
    expect(Number(expires)).toBe(now / 1000 + 60);
    expect(signer.check('artifact:a/b.png', expires, sig)).toBe('ok');
    now += 60_000;
    expect(signer.check('artifact:a/b.png', expires, sig)).toBe('ok');
    now += 1000;
    expect(signer.check('artifact:a/b.png', expires, sig)).toBe('expired');
    expect(signer.check('artifact:a/c.png', expires, sig)).toBe('invalid');
    expect(signer.check('artifact:a/b.png', String(Number(expires) + 1), sig)).toBe('invalid');
    expect(signer.check('artifact:a/b.png', expires, sig.slice(1))).toBe('invalid');
    expect(signer.check('artifact:a/b.png', null, sig)).toBe('invalid');
    expect(signer.check('artifact:a/b.png', '1e12', sig)).toBe('invalid');
  });
  test('another key, or a random per-process key, signs differently', () => {
    const a = new LinkSigner(undefined, 60).sign('x', 100);
    const b = new LinkSigner(undefined, 60).sign('x', 100);
    expect(a.sig).not.toBe(b.sig);
  });
});

describe('artifact ids in paths', () => {
  test('round trip, with every segment encoded', () => {
    for (const id of ['art/image_0123456789ab.png', 'my server/tool name_ab.txt', 'ü/ñ#?.bin'])
      expect(idFromPath(artifactPath(id))).toBe(id);
  });
  test('traversal and oddities are refused', () => {
    for (const path of [
      '/artifacts/../x',
      '/artifacts/a/./b',
      '/artifacts/a//b',
      '/artifacts/%2e%2e/x',
      '/artifacts/a%2Fb',
      '/artifacts/a%5Cb',
      '/artifacts/a%00',
      '/artifacts/%ZZ',
      '/artifacts/',
      '/other/a',
      '/artifacts/a\\b',
    ]) {
      expect([path, idFromPath(path)]).toEqual([path, undefined]);
    }
  });
});

describe('download headers', () => {
  test('ranges', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-1000', 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=50-1000', 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-0', 0)).toBe('unsatisfiable');
    for (const ignored of [undefined, '', 'bytes=5-1', 'bytes=0-1,5-6', 'items=0-1', 'bytes=-', 'bytes=a-b'])
      expect(parseRange(ignored, 100)).toBeUndefined();
  });
  test('only passive types are shown inline', () => {
    for (const type of ['image/png', 'image/jpeg', 'audio/wav', 'video/mp4', 'text/plain', 'application/json'])
      expect([type, servedInline(type)]).toEqual([type, true]);
    for (const type of [
      'text/html',
      'image/svg+xml',
      'application/xhtml+xml',
      'text/xml',
      'application/javascript',
      'application/pdf',
      'application/octet-stream',
      'text/html; charset=utf-8',
    ])
      expect([type, servedInline(type)]).toEqual([type, false]);
  });
  test('Content-Disposition keeps a safe ASCII name and the exact UTF-8 name', () => {
    expect(contentDisposition('report.pdf', false)).toBe(
      `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
    );
    expect(contentDisposition('résumé "final"; x.pdf', true)).toBe(
      `inline; filename="r_sum_ _final__ x.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%3B%20x.pdf`,
    );
    expect(contentDisposition("it's (1).txt", false)).toBe(
      `attachment; filename="it's (1).txt"; filename*=UTF-8''it%27s%20%281%29.txt`,
    );
  });
  test('download names lose separators, controls, bidi overrides and leading dots', () => {
    expect(downloadName({ filename: '../../etc/passwd', id: 'a/b.bin' })).toBe('__.._etc_passwd');
    expect(downloadName({ filename: 'a\r\nb\u202Egpj.exe', id: 'a/b.bin' })).toBe('a__b_gpj.exe');
    expect(downloadName({ filename: '.htaccess', id: 'a/b.bin' })).toBe('_htaccess');
    expect(downloadName({ id: 'srv/tool_ab.png' })).toBe('tool_ab.png');
  });
});

describe('summaries over HTTP', () => {
  const base = {
    path: '/data/store/art/x.png',
    uri: 'artifact://art/x.png',
    mimeType: 'image/png',
    size: 2048,
    downloadUrl: 'https://h/artifacts/art/x.png?expires=1&sig=s',
  };
  test('lead with the download URL and leave the path out', () => {
    const text = summaryText({ ...base, hidePath: true });
    expect(text.split('\n').slice(0, 2)).toEqual([`Download: ${base.downloadUrl}`, 'Type: image/png']);
    expect(text).not.toContain(base.path);
    expect(text.match(/Download:/g)).toHaveLength(1);
  });
  test('name both when the path is wanted', () => {
    const text = summaryText(base);
    expect(text.split('\n')[0]).toBe(`File saved: ${base.path}`);
    expect(text).toContain(`Download: ${base.downloadUrl}`);
  });
});

test('estimated tokens: text by its characters, binary by its base64', () => {
  expect(estimatedTokens(4000, 'text/plain')).toBe(1000);
  expect(estimatedTokens(3000, 'image/png')).toBe(1000);
});
