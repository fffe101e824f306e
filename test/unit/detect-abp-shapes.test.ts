import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { downloadReference } from '../../src/pipeline/detect/abp-download.js';
import {
  findAbpPayloads,
  isBinaryData,
  isBinaryDataReference,
  type BinaryDataReference,
} from '../../src/pipeline/detect/abp-shapes.js';

const PDF64 = Buffer.from('%PDF-1.4 fake').toString('base64');

describe('isBinaryData', () => {
  test.each([
    ['a PDF', { content: PDF64, mimeType: 'application/pdf' }],
    [
      'a PDF with every optional field',
      { content: PDF64, mimeType: 'application/pdf', encoding: 'base64', size: 13, filename: 'a.pdf' },
    ],
    ['an image with parameters in its type', { content: 'x', mimeType: 'image/png; foo=bar' }],
    [
      'HTML sent as base64 (file data by the ABP rules)',
      { content: 'PGh0bWw+', mimeType: 'text/html', encoding: 'base64' },
    ],
    ['JSON sent as base64', { content: 'e30=', mimeType: 'application/json', encoding: 'base64' }],
  ])('accepts %s', (_, v) => {
    expect(isBinaryData(v)).toBe(true);
  });

  test.each([
    ['text/html as UTF-8', { content: '<html></html>', mimeType: 'text/html', encoding: 'utf-8' }],
    ['text/plain without encoding', { content: 'hello', mimeType: 'text/plain' }],
    ['application/json', { content: '{}', mimeType: 'application/json' }],
    ['a +json type', { content: '{}', mimeType: 'application/ld+json' }],
    ['a +xml type', { content: '<svg/>', mimeType: 'image/svg+xml' }],
    ['application/xml', { content: '<a/>', mimeType: 'application/xml' }],
    ['JavaScript', { content: 'x()', mimeType: 'application/javascript' }],
    ['an empty MIME type', { content: 'x', mimeType: '' }],
    ['a MIME type with no subtype', { content: 'x', mimeType: 'pdf' }],
    ['content that is not a string', { content: 42, mimeType: 'application/pdf' }],
    ['no mimeType', { content: PDF64 }],
    ['a size that is not a number', { content: PDF64, mimeType: 'application/pdf', size: '13' }],
    ['a null filename', { content: PDF64, mimeType: 'application/pdf', filename: null }],
    ['an array', [PDF64, 'application/pdf']],
    ['null', null],
    ['a string', PDF64],
  ])('rejects %s', (_, v) => {
    expect(isBinaryData(v)).toBe(false);
  });
});

describe('isBinaryDataReference', () => {
  test('accepts the protocol shape, with or without optional fields', () => {
    expect(isBinaryDataReference({ downloadUrl: 'https://x/a.pdf', mimeType: 'application/pdf', size: 10 })).toBe(true);
    expect(isBinaryDataReference({ downloadUrl: 'https://x/a.pdf', mimeType: 'application/pdf' })).toBe(true);
    expect(
      isBinaryDataReference({
        downloadUrl: 'https://x/a.pdf',
        mimeType: 'application/pdf',
        size: 10,
        filename: 'a.pdf',
        expiresAt: '2030-01-01T00:00:00Z',
        auth: { type: 'bearer', token: 't' },
      }),
    ).toBe(true);
    // An auth type we do not support is still a reference: the download reports it.
    expect(isBinaryDataReference({ downloadUrl: 'https://x', mimeType: 'a/b', auth: { type: 'basic' } })).toBe(true);
  });

  test('rejects lookalikes', () => {
    expect(isBinaryDataReference({ downloadUrl: '', mimeType: 'application/pdf' })).toBe(false);
    expect(isBinaryDataReference({ downloadUrl: 'https://x' })).toBe(false);
    expect(isBinaryDataReference({ url: 'https://x', mimeType: 'application/pdf' })).toBe(false);
    expect(isBinaryDataReference({ downloadUrl: 'https://x', mimeType: 'a/b', auth: 'token' })).toBe(false);
    expect(isBinaryDataReference({ downloadUrl: 'https://x', mimeType: 'a/b', auth: { token: 't' } })).toBe(false);
    expect(isBinaryDataReference({ downloadUrl: 'https://x', mimeType: 'a/b', size: '10' })).toBe(false);
  });
});

describe('findAbpPayloads', () => {
  const document = { content: PDF64, mimeType: 'application/pdf', encoding: 'base64', size: 145832 };

  test('the seed example: a nested document with its siblings as metadata', () => {
    expect(findAbpPayloads({ document, pageCount: 12 })).toEqual([
      { path: ['document'], kind: 'binary', value: document, metadata: { pageCount: 12 } },
    ]);
  });

  test('a payload at the top level gets its extra properties as metadata', () => {
    expect(findAbpPayloads({ ...document, pageCount: 3, title: 'T' })).toEqual([
      {
        path: [],
        kind: 'binary',
        value: { ...document, pageCount: 3, title: 'T' },
        metadata: { pageCount: 3, title: 'T' },
      },
    ]);
    const ref = { downloadUrl: 'https://x/a.zip', mimeType: 'application/zip', size: 1 };
    expect(findAbpPayloads(ref)).toEqual([{ path: [], kind: 'reference', value: ref, metadata: {} }]);
  });

  test('several payloads: no payload appears in another one’s metadata', () => {
    const image = { content: 'iVBOR', mimeType: 'image/png' };
    const link = { downloadUrl: 'https://x/big.zip', mimeType: 'application/zip', size: 9e9 };
    const found = findAbpPayloads({ document, image, link, pageCount: 12, title: 'Q3' });
    expect(found.map((p) => [p.path, p.kind])).toEqual([
      [['document'], 'binary'],
      [['image'], 'binary'],
      [['link'], 'reference'],
    ]);
    for (const p of found) expect(p.metadata).toEqual({ pageCount: 12, title: 'Q3' });
  });

  test('array elements are found, without metadata', () => {
    const found = findAbpPayloads([document, { note: 'x' }, document]);
    expect(found.map((p) => p.path)).toEqual([[0], [2]]);
    expect(found.every((p) => Object.keys(p.metadata).length === 0)).toBe(true);
  });

  test('depth 1 by default; deeper with a larger depth', () => {
    const data = { result: { files: { main: document, pages: 2 } } };
    expect(findAbpPayloads(data)).toEqual([]);
    expect(findAbpPayloads(data, 2)).toEqual([]);
    expect(findAbpPayloads(data, 3)).toEqual([
      { path: ['result', 'files', 'main'], kind: 'binary', value: document, metadata: { pages: 2 } },
    ]);
    expect(findAbpPayloads({ document }, 0)).toEqual([]);
  });

  test('plain data and primitives have none', () => {
    for (const v of [
      null,
      undefined,
      1,
      'x',
      [],
      {},
      { workbooks: [{ id: 1 }] },
      { content: 'hi', mimeType: 'text/plain' },
    ]) {
      expect(findAbpPayloads(v)).toEqual([]);
    }
  });

  test('declared utf-8 text is a payload only when asked for (file mode), with its siblings as metadata', () => {
    const html = { content: '<p>Grüße</p>', mimeType: 'text/html', encoding: 'utf-8' };
    expect(findAbpPayloads({ html, title: 'T' })).toEqual([]);
    expect(findAbpPayloads({ html, title: 'T' }, 1, { declaredText: true })).toEqual([
      { path: ['html'], kind: 'binary', value: html, metadata: { title: 'T' } },
    ]);
    // Text without a declared encoding stays data in either mode.
    expect(findAbpPayloads({ note: { content: 'hi', mimeType: 'text/plain' } }, 1, { declaredText: true })).toEqual([]);
    expect(
      findAbpPayloads({ note: { content: 'hi', mimeType: 'text/plain', encoding: 'latin1' } }, 1, {
        declaredText: true,
      }),
    ).toEqual([]);
  });

  test('a __proto__ sibling stays a plain metadata key', () => {
    const data = JSON.parse(`{"document": ${JSON.stringify(document)}, "__proto__": {"polluted": true}}`);
    const [found] = findAbpPayloads(data);
    expect(Object.getPrototypeOf(found.metadata)).toBe(Object.prototype);
    expect(Object.keys(found.metadata)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('downloadReference', () => {
  let server: Server;
  let base: string;
  let lastRequest: IncomingMessage | undefined;
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      lastRequest = req;
      const handler = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (handler) handler(req, res);
      else res.writeHead(404, 'Not Found').end('nope');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    routes.set('/file.pdf', (_, res) =>
      res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4 hello'),
    );
    routes.set('/generic', (_, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('png bytes'));
    routes.set('/private', (req, res) => {
      const ok =
        req.headers.authorization === 'Bearer s3cret' ||
        req.headers['x-token'] === 'Bearer s3cret' ||
        new URL(req.url ?? '/', 'http://x').searchParams.get('token') === 's3cret';
      res.writeHead(ok ? 200 : 401, ok ? 'OK' : 'Unauthorized').end(ok ? 'secret data' : 'no');
    });
    routes.set('/big', (_, res) => {
      // No Content-Length: the cap must be enforced while streaming.
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' });
      let sent = 0;
      const push = (): void => {
        if (sent >= 1_000_000) return void res.end();
        sent += 64 * 1024;
        res.write(Buffer.alloc(64 * 1024), () => setImmediate(push));
      };
      push();
    });
    routes.set('/announced-big', (_, res) => res.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000)));
    routes.set('/slow', (_, res) => {
      res.writeHead(200);
      res.write('start');
      setTimeout(() => res.end('late'), 2000).unref();
    });
    routes.set('/redirect', (_, res) => res.writeHead(302, { location: '/file.pdf' }).end());
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const ref = (path: string, extra: Partial<BinaryDataReference> = {}): BinaryDataReference => ({
    downloadUrl: `${base}${path}`,
    mimeType: 'application/pdf',
    ...extra,
  });
  // The test server is on loopback, which downloads reach only when allowed.
  const options = { timeoutMs: 5000, maxBytes: 100_000, allow: ['127.0.0.1'] };

  test('downloads the bytes, with the declared type', async () => {
    const { bytes, mimeType } = await downloadReference(ref('/file.pdf'), options);
    expect(bytes.toString()).toBe('%PDF-1.4 hello');
    expect(mimeType).toBe('application/pdf');
  });

  test('uses the response type when the declared one is generic', async () => {
    expect((await downloadReference(ref('/generic', { mimeType: 'application/octet-stream' }), options)).mimeType).toBe(
      'image/png',
    );
  });

  test('follows redirects', async () => {
    expect((await downloadReference(ref('/redirect'), options)).bytes.toString()).toBe('%PDF-1.4 hello');
  });

  test('sends a bearer token, in Authorization or the given header', async () => {
    expect(
      (
        await downloadReference(ref('/private', { auth: { type: 'bearer', token: 's3cret' } }), options)
      ).bytes.toString(),
    ).toBe('secret data');
    expect(lastRequest?.headers.authorization).toBe('Bearer s3cret');
    await downloadReference(ref('/private', { auth: { type: 'bearer', token: 's3cret', header: 'X-Token' } }), options);
    expect(lastRequest?.headers['x-token']).toBe('Bearer s3cret');
    expect(lastRequest?.headers.authorization).toBeUndefined();
  });

  test('sends a query token, and never shows it in an error', async () => {
    expect(
      (
        await downloadReference(ref('/private', { auth: { type: 'query', token: 's3cret' } }), options)
      ).bytes.toString(),
    ).toBe('secret data');
    expect(lastRequest?.url).toBe('/private?token=s3cret');
    const failing = downloadReference(ref('/missing', { auth: { type: 'query', token: 's3cret' } }), options);
    await expect(failing).rejects.toThrow(`download of ${base}/missing failed with HTTP status 404 Not Found`);
    await expect(failing).rejects.not.toThrow(/s3cret/);
  });

  test('a non-2xx status is an error naming it, and an expired link says so', async () => {
    await expect(downloadReference(ref('/private'), options)).rejects.toThrow(
      'failed with HTTP status 401 Unauthorized',
    );
    await expect(downloadReference(ref('/private', { expiresAt: '2001-01-01T00:00:00Z' }), options)).rejects.toThrow(
      '(the link expired at 2001-01-01T00:00:00Z)',
    );
  });

  test('stops a streamed body past maxBytes', async () => {
    await expect(downloadReference(ref('/big'), { ...options, maxBytes: 200_000 })).rejects.toThrow(
      `download of ${base}/big exceeded 200000 bytes`,
    );
  });

  test('refuses an announced Content-Length past maxBytes before reading', async () => {
    await expect(downloadReference(ref('/announced-big'), { ...options, maxBytes: 4999 })).rejects.toThrow(
      'exceeded 4999 bytes',
    );
    expect((await downloadReference(ref('/announced-big'), { ...options, maxBytes: 5000 })).bytes.length).toBe(5000);
  });

  test('times out', async () => {
    await expect(downloadReference(ref('/slow'), { ...options, timeoutMs: 300, maxBytes: 1000 })).rejects.toThrow(
      `download of ${base}/slow timed out after 300 ms`,
    );
  });

  test('reports network failures, bad URLs, other schemes and unsupported auth', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/x`;
    await new Promise((resolve) => closed.close(resolve));
    await expect(downloadReference({ downloadUrl: deadUrl, mimeType: 'a/b' }, options)).rejects.toThrow(
      `download of ${deadUrl} failed: connect ECONNREFUSED`,
    );
    await expect(downloadReference({ downloadUrl: 'not a url', mimeType: 'a/b' }, options)).rejects.toThrow(
      'not a valid URL',
    );
    await expect(downloadReference({ downloadUrl: 'file:///etc/passwd', mimeType: 'a/b' }, options)).rejects.toThrow(
      'only http and https URLs are fetched',
    );
    await expect(downloadReference(ref('/file.pdf', { auth: { type: 'basic', token: 'x' } }), options)).rejects.toThrow(
      'unsupported auth type "basic"',
    );
  });
});
