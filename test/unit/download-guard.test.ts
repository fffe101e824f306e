// BinaryDataReference downloads reach only public addresses unless allowed (#34 finding 4): the ranges, the
// allow-list in the config, a check on the address connected to, every redirect, and a token kept to its origin.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/types.js';
import { downloadReference } from '../../src/pipeline/detect/abp-download.js';
import { addressPolicy, deniedAddress } from '../../src/pipeline/detect/address-policy.js';

const none = addressPolicy([]);

describe('deniedAddress', () => {
  test.each([
    '127.0.0.1',
    '127.0.0.2',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:0:10.0.0.1',
    '64:ff9b::192.168.0.1',
    '::127.0.0.1',
  ])('%s is refused', (address) => {
    expect(deniedAddress(address, none)).toMatch(/internal address$/);
  });

  test.each(['1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(deniedAddress(address, none)).toBeUndefined();
    },
  );

  test('the allow-list lets addresses and ranges through, no more', () => {
    const policy = addressPolicy(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', 'files.internal']);
    expect(deniedAddress('127.0.0.1', policy)).toBeUndefined();
    expect(deniedAddress('::ffff:127.0.0.1', policy)).toBeUndefined();
    expect(deniedAddress('127.0.0.2', policy)).toBeDefined();
    expect(deniedAddress('10.200.0.1', policy)).toBeUndefined();
    expect(deniedAddress('fd00::5', policy)).toBeUndefined();
    expect(deniedAddress('192.168.0.1', policy)).toBeDefined();
    expect(policy.hosts).toEqual(new Set(['files.internal']));
  });
});

describe('pipeline.download.allow in the config', () => {
  const FILE = '/etc/mcp-offload/config.yaml';
  const problems = (...lines: string[]): string[] => {
    try {
      parseConfig([...lines, 'servers:', '  files: {command: node}'].join('\n'), FILE, {});
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
      throw error;
    }
    return [];
  };

  test('host names, addresses and CIDR ranges are read', () => {
    expect(
      problems('pipeline: {download: {allow: [files.internal, 10.0.0.0/8, "::1", "fd00::/8", 192.168.1.7]}}'),
    ).toEqual([]);
  });

  test('anything else is an error at its line', () => {
    expect(
      problems('pipeline:', '  download:', '    allow:', '      - 10.0.0.0/33', '      - "bad host!"', '      - a/8'),
    ).toEqual([
      '4:9 download.allow: "10.0.0.0/33": the prefix length must be a whole number from 0 to 32',
      '5:9 download.allow: "bad host!" is neither a host name, an address nor a CIDR range',
      '6:9 download.allow: "a/8" is not a CIDR range: "a" is no IP address',
    ]);
  });

  test('in a rule too', () => {
    expect(problems('rules:', '  - server: files', '    download: {allow: ["10.0.0.0/x"]}')).toEqual([
      '3:24 download.allow: "10.0.0.0/x": the prefix length must be a whole number from 0 to 32',
    ]);
  });
});

describe('downloadReference and internal addresses', () => {
  let server: Server;
  let other: Server;
  let base: string;
  let otherBase: string;
  const seen: IncomingMessage[] = [];

  beforeAll(async () => {
    other = createServer((req, res) => {
      seen.push(req);
      res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4 other');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    server = createServer((req, res) => {
      seen.push(req);
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (to) res.writeHead(302, { location: to }).end();
      else res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4 here');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const s of [server, other]) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  const options = { timeoutMs: 5000, maxBytes: 100_000 };
  const get = (url: string, extra = {}) =>
    downloadReference({ downloadUrl: url, mimeType: 'application/pdf' }, { ...options, ...extra });

  test('loopback by address and by name is refused before any request', async () => {
    seen.length = 0;
    await expect(get(`${base}/a.pdf`)).rejects.toThrow(
      `download of ${base}/a.pdf refused: 127.0.0.1 is a loopback, private, link-local or otherwise internal address; an operator can allow it with pipeline.download.allow`,
    );
    const port = (server.address() as AddressInfo).port;
    await expect(get(`http://localhost:${port}/a.pdf`)).rejects.toThrow(
      /refused: localhost resolves to .* internal address/,
    );
    await expect(get(`http://[::ffff:127.0.0.1]:${port}/a.pdf`)).rejects.toThrow(
      /refused: ::ffff:7f00:1 is a loopback/,
    );
    expect(seen).toEqual([]);
  });

  test('allowed, it is fetched; a redirect to an address not allowed is refused at that hop', async () => {
    seen.length = 0;
    expect((await get(`${base}/a.pdf`, { allow: ['127.0.0.1'] })).bytes.toString()).toBe('%PDF-1.4 here');
    const port = (other.address() as AddressInfo).port;
    await expect(
      get(`${base}/r?to=${encodeURIComponent(`http://127.0.0.2:${port}/meta`)}`, { allow: ['127.0.0.1'] }),
    ).rejects.toThrow(/refused: 127\.0\.0\.2 is a loopback/);
    expect(seen).toHaveLength(2); // the file, and the redirecting hop; nothing reached 127.0.0.2
  });

  test('a bearer token goes to its own origin, never across a redirect to another', async () => {
    seen.length = 0;
    const auth = { type: 'bearer' as const, token: 's3cret', header: 'X-Token' };
    const downloadUrl = `${base}/r?to=${encodeURIComponent(`${otherBase}/file.pdf`)}`;
    const { bytes } = await downloadReference(
      { downloadUrl, mimeType: 'application/pdf', auth },
      { ...options, allow: ['127.0.0.1'] },
    );
    expect(bytes.toString()).toBe('%PDF-1.4 other');
    expect(seen.map((req) => req.headers['x-token'])).toEqual(['Bearer s3cret', undefined]);
  });

  test('a token cannot go in a header that frames or routes the request', async () => {
    for (const header of ['Host', 'transfer-encoding', 'Proxy-Authorization', 'bad header'])
      await expect(
        downloadReference(
          { downloadUrl: `${base}/a.pdf`, mimeType: 'application/pdf', auth: { type: 'bearer', token: 't', header } },
          { ...options, allow: ['127.0.0.1'] },
        ),
      ).rejects.toThrow(/refused: (a token cannot go in the .* header|the token's header is not a valid header)/);
  });

  test('an ABP app origin the preset trusts is reached, loopback or not', async () => {
    const trustedOrigins = new Set([base]);
    expect((await get(`${base}/a.pdf`, { trustedOrigins })).bytes.toString()).toBe('%PDF-1.4 here');
  });
});
