import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { makePdf } from '../fixtures/pdf.mjs';

const PDF = makePdf('Downloaded Report');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('ABP BinaryDataReference in a result', () => {
  let http: Server;
  let base: string;
  let proxy: ProxyUnderTest;

  beforeAll(async () => {
    http = createServer((req, res) => {
      if (req.url === '/report.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
      else res.writeHead(404).end('no such file');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    // The file server is on loopback, which downloads reach only when the config allows it.
    proxy = await startProxy(
      testConfig([{ name: 'app', command: NODE, args: [FIXTURES.basic, '--tools', 'echo'] }], {
        pipeline: { download: { allow: ['127.0.0.1'] } },
      }),
    );
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => http.close(resolve));
  });

  /** The basic fixture's echo answers its message as a text block: here, JSON of an ABP result. */
  const echo = (data: unknown) => proxy.client.callTool({ name: 'echo', arguments: { message: JSON.stringify(data) } });

  test('is downloaded into the store, its siblings shown as metadata', async () => {
    const result = await echo({
      document: { downloadUrl: `${base}/report.pdf`, mimeType: 'application/pdf', size: PDF.length },
      pageCount: 1,
    });
    const content = result.content as { type: string; text?: string; uri?: string }[];
    const link = content.find((b) => b.type === 'resource_link')!;
    const summary = content.find((b) => b.text?.startsWith('File saved:'))!.text!;
    expect(summary).toContain('Type: application/pdf');
    expect(summary).toContain('"pageCount":1');
    const read = await proxy.client.readResource({ uri: link.uri! });
    expect(sha256(Buffer.from((read.contents[0] as { blob: string }).blob, 'base64'))).toBe(sha256(PDF));
    const json = JSON.parse(content[0].text!) as { document: { $artifact: string } };
    expect(json.document.$artifact).toBe(link.uri);
  });

  test('a failed download reports the URL and the error, and leaves the reference as it was', async () => {
    const reference = { downloadUrl: `${base}/missing.pdf`, mimeType: 'application/pdf' };
    const result = await echo({ document: reference });
    const texts = (result.content as { type: string; text?: string }[]).map((b) => b.text ?? '');
    expect(JSON.parse(texts[0])).toEqual({ document: reference });
    expect(texts.join('\n')).toMatch(new RegExp(`could not download ${base}/missing\\.pdf.*404`));
  });
  test('a reference to an internal address not allowed is refused, and left as it was', async () => {
    const reference = {
      downloadUrl: `${base.replace('127.0.0.1', '127.0.0.2')}/report.pdf`,
      mimeType: 'application/pdf',
    };
    const result = await echo({ document: reference });
    const texts = (result.content as { type: string; text?: string }[]).map((b) => b.text ?? '');
    expect(JSON.parse(texts[0])).toEqual({ document: reference });
    expect(texts.join('\n')).toContain(
      'refused: 127.0.0.2 is a loopback, private, link-local or otherwise internal address',
    );
  });
});
