import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { LinkSigner } from '../../src/http/link-signer.js';
import {
  SIGNING_KEY,
  TOKENS,
  connectHttp,
  downloadUrlOf,
  linksOf,
  startSidecar,
  textsOf,
  type HttpClient,
  type Sidecar,
} from '../helpers/sidecar.js';

const [ALICE] = TOKENS as [(typeof TOKENS)[0]];

/** A GET with the path sent exactly as written (fetch and URL would resolve `..` first). */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('latin1').on('data', (s: string) => (body += s));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject).end();
  });
}

describe('sidecar: artifact downloads', () => {
  let sidecar: Sidecar;
  let alice: HttpClient;
  let png: { url: string; uri: string; bytes: Buffer };

  beforeAll(async () => {
    sidecar = await startSidecar();
    alice = await connectHttp(sidecar.base, ALICE.token);
    const result = await alice.client.callTool({ name: 'image', arguments: { tag: 'download-me' } });
    const uri = linksOf(result)[0]!;
    const read = await alice.client.readResource({ uri });
    png = {
      url: downloadUrlOf(result),
      uri,
      bytes: Buffer.from((read.contents[0] as { blob: string }).blob, 'base64'),
    };
  });
  afterAll(async () => {
    await alice?.close();
    await sidecar?.close();
  });

  test('the summary leads with a signed download URL, not a path on the gateway; the resource link stays artifact://', async () => {
    const result = await alice.client.callTool({ name: 'image', arguments: { tag: 'summary' } });
    const text = textsOf(result);
    expect(text).toMatch(
      new RegExp(`^Download: ${sidecar.base}/artifacts/art/image_[0-9a-f]{12}\\.png\\?expires=\\d+&sig=[\\w-]+$`, 'm'),
    );
    expect(text).not.toContain('File saved:');
    expect(text).not.toContain(sidecar.config.artifacts.dir!);
    expect(linksOf(result)[0]).toMatch(/^artifact:\/\/art\/image_[0-9a-f]{12}\.png$/);
    // A payload inside JSON becomes a reference with the link in place of the path.
    const json = await alice.client.callTool({
      name: 'file',
      arguments: { filename: 'r.pdf', mimeType: 'application/pdf', text: '%PDF-1.4 json' },
    });
    const reference = JSON.parse(textsOf(json).split('\n')[0]!) as Record<string, unknown>;
    expect(reference).toEqual({
      $artifact: linksOf(json)[0],
      url: downloadUrlOf(json),
      mimeType: 'application/pdf',
      size: 1500,
    });
    const meta = (json._meta as Record<string, Array<Record<string, unknown>>>)['mcp-offload/artifacts']![0]!;
    expect(meta.downloadUrl).toBe(downloadUrlOf(json));
    // artifact_list names the links and a signed gallery.
    const listed = textsOf(await alice.client.callTool({ name: 'artifact_list', arguments: {} }));
    expect(listed).toContain(`${sidecar.base}/artifacts/art/image_`);
    expect(listed).toMatch(
      // The gallery of the principal's artifacts (the default scope): every session of alice's token.
      /^Gallery: http:\/\/127\.0\.0\.1:\d+\/artifacts\?scope=token%3A(?:alice)&expires=\d+&sig=[\w-]+$/m,
    );
    expect(listed).not.toContain(sidecar.config.artifacts.dir!);
  });

  test('a signed link serves the exact bytes with type, length, disposition, ETag, nosniff and a sandbox CSP', async () => {
    const response = await fetch(png.url);
    expect(response.status).toBe(200);
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.equals(png.bytes)).toBe(true);
    const h = response.headers;
    expect(h.get('content-type')).toBe('image/png');
    expect(h.get('content-length')).toBe(String(png.bytes.length));
    expect(h.get('etag')).toBe(`"${createHash('sha256').update(png.bytes).digest('hex')}"`);
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    expect(h.get('content-disposition')).toMatch(
      /^inline; filename="image_[0-9a-f]{12}\.png"; filename\*=UTF-8''image_[0-9a-f]{12}\.png$/,
    );
    expect(h.get('accept-ranges')).toBe('bytes');
    expect(h.get('referrer-policy')).toBe('no-referrer');
  });

  test('If-None-Match answers 304; ranges answer 206 or 416', async () => {
    const etag = (await fetch(png.url, { method: 'HEAD' })).headers.get('etag')!;
    const cached = await fetch(png.url, { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    expect((await fetch(png.url, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);

    const size = png.bytes.length;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-7', 0, 7],
      ['bytes=8-', 8, size - 1],
      ['bytes=-12', size - 12, size - 1],
      [`bytes=10-${size + 100}`, 10, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const response = await fetch(png.url, { headers: { range } });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
      expect(Buffer.from(await response.arrayBuffer()).equals(png.bytes.subarray(start, end + 1))).toBe(true);
    }
    for (const range of [`bytes=${size}-`, 'bytes=-0']) {
      const response = await fetch(png.url, { headers: { range } });
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe(`bytes */${size}`);
    }
    // Several ranges, or a stale If-Range: the whole file.
    expect((await fetch(png.url, { headers: { range: 'bytes=0-1,4-5' } })).status).toBe(200);
    expect((await fetch(png.url, { headers: { range: 'bytes=0-1', 'if-range': '"stale"' } })).status).toBe(200);
  });

  test('links stop working when they expire, and a tampered link never works', async () => {
    const url = new URL(png.url);
    const id = decodeURIComponent(url.pathname.slice('/artifacts/'.length));
    const signer = new LinkSigner(SIGNING_KEY, 60);
    const past = signer.sign(`artifact:${id}`, Math.floor(Date.now() / 1000) - 1);
    const expired = await fetch(`${sidecar.base}${url.pathname}?expires=${past.expires}&sig=${past.sig}`);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toEqual({ error: 'this link has expired' });
    const soon = signer.sign(`artifact:${id}`, Math.floor(Date.now() / 1000) + 30);
    expect((await fetch(`${sidecar.base}${url.pathname}?expires=${soon.expires}&sig=${soon.sig}`)).status).toBe(200);

    const sig = url.searchParams.get('sig')!;
    const expires = url.searchParams.get('expires')!;
    const flipped = `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
    const tampered = [
      `${url.pathname}?expires=${expires}&sig=${flipped}`,
      `${url.pathname}?expires=${Number(expires) + 3600}&sig=${sig}`,
      `${url.pathname}?expires=${expires}&sig=`,
      `${url.pathname}?sig=${sig}`,
      `/artifacts/art/other_000000000000.png?expires=${expires}&sig=${sig}`,
    ];
    for (const path of tampered) {
      const response = await fetch(`${sidecar.base}${path}`);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'this link is not valid' });
    }
    // Signed by another key (another gateway, or a guess): not valid either.
    const foreign = new LinkSigner('another-key-0123456789abcdef0123456789', 60).sign(`artifact:${id}`);
    expect((await fetch(`${sidecar.base}${url.pathname}?expires=${foreign.expires}&sig=${foreign.sig}`)).status).toBe(
      403,
    );
  });

  test('path traversal in the id is refused as not found, and never reaches a file', async () => {
    const paths = [
      '/artifacts/../../../../etc/passwd',
      '/artifacts/art/../../../etc/passwd',
      '/artifacts/%2e%2e/%2e%2e/etc/passwd',
      '/artifacts/art%2F..%2F..%2Fetc%2Fpasswd',
      '/artifacts/..%5c..%5cetc%5cpasswd',
      '/artifacts/.meta/x.json',
      '/artifacts//etc/passwd',
      '/artifacts/art/%00.png',
      '/artifacts/%E0%A4%A',
      '/artifacts/',
    ];
    for (const path of paths) {
      const response = await rawGet(sidecar.base, path, {
        authorization: `Bearer ${ALICE.token}`,
        'mcp-session-id': alice.sessionId,
      });
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.body).not.toMatch(/root:|sha256/);
    }
  });

  test('hostile filenames from an upstream come out as safe Content-Disposition headers', async () => {
    const hostile = [
      '../../etc/passwd',
      'report".pdf; filename=evil.exe',
      'line\r\nSet-Cookie: stolen=1.txt',
      'résumé\u202Efdp.exe',
      '..\\..\\windows\\system32\\cmd.exe',
      '',
    ];
    for (const filename of hostile) {
      const result = await alice.client.callTool({
        name: 'file',
        arguments: { filename, mimeType: 'application/pdf', text: `%PDF-1.4 ${filename}` },
      });
      const response = await fetch(downloadUrlOf(result));
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toBeNull();
      const disposition = response.headers.get('content-disposition')!;
      const match = /^attachment; filename="([\x20-\x7e]*)"; filename\*=UTF-8''([A-Za-z0-9%._~!-]+)$/.exec(disposition);
      expect([filename, match !== null]).toEqual([filename, true]);
      const [, ascii, encoded] = match!;
      for (const name of [ascii!, decodeURIComponent(encoded!)]) {
        expect(name).not.toMatch(/[/\\"\r\n\u202E]/);
        expect(name.startsWith('.')).toBe(false);
      }
    }
  });

  test('HTML and SVG are attachments in a sandbox, so they cannot run script in our origin', async () => {
    for (const [mimeType, text] of [
      ['text/html', '<html><body><script>document.title="pwned"</script></body></html>'],
      ['image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    ]) {
      const result = await alice.client.callTool({ name: 'file', arguments: { filename: 'page', mimeType, text } });
      const response = await fetch(downloadUrlOf(result));
      expect(response.headers.get('content-type')).toBe(mimeType);
      expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(response.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  test('with links.showPath and a publicUrl, summaries name both the path and the public link', async () => {
    const shown = await startSidecar((config) => {
      config.artifacts.links.showPath = true;
      config.artifacts.publicUrl = 'https://tools.example.com/offload';
    });
    const client = await connectHttp(shown.base, ALICE.token);
    try {
      const text = textsOf(await client.client.callTool({ name: 'image', arguments: { tag: 'public' } }));
      expect(text).toMatch(new RegExp(`^File saved: ${shown.config.artifacts.dir}/art/image_[0-9a-f]{12}\\.png$`, 'm'));
      expect(text).toMatch(
        /^Download: https:\/\/tools\.example\.com\/offload\/artifacts\/art\/image_[0-9a-f]{12}\.png\?expires=\d+&sig=/m,
      );
    } finally {
      await client.close();
      await shown.close();
    }
  });
});
