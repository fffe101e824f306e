// The RFC's Tableau examples (Appendix B) through the proxy: field rules, automatic detection,
// the ABP BinaryData shape, data: URIs in markdown, and look-alikes that must pass unchanged.
import { readFile } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { Ajv } from 'ajv';
import type { RuleConfig } from '../../src/pipeline/settings.js';
import { CHART_PNG, REPORT_PDF, VIEW_PDF, WORKBOOK_PDF } from '../fixtures/pdf.mjs';
import type { StdioConnection } from '../helpers/fixtures.js';
import {
  artifactMeta,
  call,
  connectTableau,
  links,
  onlyLink,
  readBlob,
  sha256,
  startTableau,
  summaries,
  texts,
} from '../helpers/pipeline.js';
import type { ProxyUnderTest } from '../helpers/proxy.js';

const WORKBOOK_SHA = sha256(WORKBOOK_PDF);

const workbookRule = (path: string): RuleConfig => ({
  server: 'tableau',
  tool: 'download_workbook',
  settings: {
    fields: [
      {
        path,
        mimeType: 'application/pdf',
        filename: '{name}.pdf',
        summary: "Downloaded workbook '{name}' ({size_human})",
      },
    ],
  },
});

describe.each(['content', '$.content'])('download_workbook with a field rule on %s', (path) => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startTableau({ rules: [workbookRule(path)] });
  });
  afterAll(() => proxy?.close());

  test('the field becomes a reference; name and format stay; a summary and a resource_link follow', async () => {
    const result = await call(proxy.client, 'download_workbook', { workbook_id: 'wb-1' });
    const [first] = result.content;
    expect(first.type).toBe('text');
    const doc = JSON.parse((first as { text: string }).text);
    const link = onlyLink(result);
    const [meta] = artifactMeta(result);

    expect(doc).toEqual({
      content: { $artifact: link.uri, path: meta.path, mimeType: 'application/pdf', size: WORKBOOK_PDF.length },
      name: 'Sales Dashboard',
      format: 'pdf',
    });

    const [summary] = summaries(result);
    expect(summaries(result)).toHaveLength(1);
    expect(summary.startsWith("Downloaded workbook 'Sales Dashboard' (")).toBe(true);
    const saved = /^File saved: (.+)$/m.exec(summary)![1];
    expect(isAbsolute(saved)).toBe(true);
    expect(saved).toBe(meta.path);
    expect(summary).toContain('Type: application/pdf');
    expect(summary).toContain(`Size: ${WORKBOOK_PDF.length} bytes`);
    expect(summary).toMatch(/^Pages: 3$/m);
    expect(summary).toContain(`Resource: ${link.uri}`);
    expect(summary).toContain('Metadata: {"name":"Sales Dashboard","format":"pdf"}');

    expect(link.uri).toMatch(/^artifact:\/\/tableau\/download_workbook_[0-9a-f]{12}\.pdf$/);
    expect(link).toMatchObject({ mimeType: 'application/pdf', size: WORKBOOK_PDF.length, name: 'Sales Dashboard.pdf' });
    // The base64 is gone from what the model reads.
    expect(JSON.stringify(result)).not.toContain(WORKBOOK_PDF.toString('base64').slice(0, 200));

    expect(artifactMeta(result)).toEqual([
      {
        uri: link.uri,
        path: meta.path,
        mimeType: 'application/pdf',
        size: WORKBOOK_PDF.length,
        sha256: WORKBOOK_SHA,
        source: expect.stringContaining('content'),
      },
    ]);
  });

  test('the file on disk and resources/read hold the PDF', async () => {
    const result = await call(proxy.client, 'download_workbook', { workbook_id: 'wb-1' });
    const link = onlyLink(result);
    const [meta] = artifactMeta(result);
    expect(meta.path.startsWith(proxy.gateway.offload.store.dir + sep)).toBe(true);
    expect(sha256(await readFile(meta.path))).toBe(WORKBOOK_SHA);
    const { bytes, mimeType } = await readBlob(proxy.client, link.uri);
    expect(mimeType).toBe('application/pdf');
    expect(sha256(bytes)).toBe(WORKBOOK_SHA);
  });
});

describe('automatic detection (no rules)', () => {
  let proxy: ProxyUnderTest;
  let direct: StdioConnection;
  beforeAll(async () => {
    [proxy, direct] = await Promise.all([startTableau(), connectTableau()]);
  });
  afterAll(async () => {
    await proxy?.close();
    await direct?.close();
  });

  test('download_workbook: the base64 PDF is found by its magic bytes', async () => {
    const result = await call(proxy.client, 'download_workbook', { workbook_id: 'wb-1' });
    const link = onlyLink(result);
    const doc = JSON.parse(texts(result)[0]);
    expect(doc).toMatchObject({
      name: 'Sales Dashboard',
      format: 'pdf',
      content: { $artifact: link.uri, mimeType: 'application/pdf' },
    });
    const [summary] = summaries(result);
    expect(summary.split('\n')[0]).toMatch(/^File saved: \//);
    expect(summary).toMatch(/^Pages: 3$/m);
    expect(link).toMatchObject({ mimeType: 'application/pdf', size: WORKBOOK_PDF.length });
    expect(sha256((await readBlob(proxy.client, link.uri)).bytes)).toBe(WORKBOOK_SHA);
  });

  test('list_workbooks reaches the client exactly as the upstream sent it', async () => {
    const viaProxy = await call(proxy.client, 'list_workbooks');
    const straight = await call(direct.client, 'list_workbooks');
    expect(viaProxy).toEqual(straight);
    expect(texts(viaProxy)[0]).toBe(
      '{"workbooks":[{"id":"123","name":"Sales","project":"Analytics"},{"id":"456","name":"Marketing","project":"Analytics"}]}',
    );
    expect(viaProxy._meta).toBeUndefined();
  });

  test('tools/list shows get_view_as_pdf with its own output schema: the rewrite keeps the declared types', async () => {
    const { tools } = await proxy.client.listTools();
    const upstream = (await direct.client.listTools()).tools;
    const named = (list: typeof tools, name: string) => list.find((t) => t.name === name)!;
    expect(named(tools, 'get_view_as_pdf').outputSchema).toEqual(named(upstream, 'get_view_as_pdf').outputSchema);
    // Tools without an output schema are not given one.
    expect(named(tools, 'download_workbook').outputSchema).toBeUndefined();
  });

  test("get_view_as_pdf: the payload string becomes the artifact's URI; the SDK client's schema validation accepts it", async () => {
    await proxy.client.listTools(); // the SDK client validates structuredContent against the schemas it listed
    const result = await call(proxy.client, 'get_view_as_pdf', { view_id: 'v-1' });
    const link = onlyLink(result);
    const structured = result.structuredContent as Record<string, unknown>;
    expect(structured).toEqual({
      pdf_data: link.uri,
      view_name: 'Revenue by Region',
      generated_at: '2025-12-22T10:30:00Z',
    });
    // The text block carries the same document, with a reference the model can read in place of the payload.
    expect(JSON.parse(texts(result)[0])).toEqual({
      ...structured,
      pdf_data: expect.objectContaining({ $artifact: link.uri, mimeType: 'application/pdf', size: VIEW_PDF.length }),
    });
    expect(summaries(result)).toHaveLength(1);
    expect(sha256((await readBlob(proxy.client, link.uri)).bytes)).toBe(sha256(VIEW_PDF));

    // The upstream's own schema accepts the rewritten value as it is.
    const upstream = (await direct.client.listTools()).tools.find((t) => t.name === 'get_view_as_pdf')!.outputSchema!;
    expect(new Ajv({ strict: false }).validate(upstream, structured)).toBe(true);
  });

  test('_meta names the one artifact once, with each place it was taken from (text and structuredContent)', async () => {
    const result = await call(proxy.client, 'get_view_as_pdf', { view_id: 'v-1' });
    const meta = artifactMeta(result);
    expect(meta).toHaveLength(1);
    expect(meta[0]).toMatchObject({ sha256: sha256(VIEW_PDF), size: VIEW_PDF.length, source: 'content[0].pdf_data' });
    expect(meta[0]!.sources).toEqual(['content[0].pdf_data', 'structuredContent.pdf_data']);
  });
});

describe('a rewritten JSON text keeps the values around the payload', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startTableau();
  });
  afterAll(() => proxy?.close());

  test('an integer id beyond 2^53 survives the rewrite digit for digit', async () => {
    const result = await call(proxy.client, 'workbook_with_big_id');
    const link = onlyLink(result);
    const text = texts(result)[0];
    expect(text).toContain(link.uri);
    expect(text).not.toContain(WORKBOOK_PDF.toString('base64').slice(0, 100));
    // The upstream said 9007199254740993; a JSON.parse/JSON.stringify round trip turns it into ...992.
    expect(text).toContain('"id":9007199254740993');
  });
});

describe('export_report: ABP nested BinaryData with a hostile filename', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startTableau();
  });
  afterAll(() => proxy?.close());

  test('extracted with its sibling metadata; the file name cannot climb out of the artifact dir', async () => {
    const result = await call(proxy.client, 'export_report');
    const link = onlyLink(result);
    const [meta] = artifactMeta(result);
    const doc = JSON.parse(texts(result)[0]);
    expect(doc).toEqual({
      document: { $artifact: link.uri, path: meta.path, mimeType: 'application/pdf', size: REPORT_PDF.length },
      pageCount: 3,
    });

    const [summary] = summaries(result);
    expect(summary).toMatch(/^Metadata: .*"pageCount":3/m);
    expect(summary).toMatch(/^Pages: 3$/m);

    const dir = proxy.gateway.offload.store.dir;
    expect(meta.path.startsWith(dir + sep)).toBe(true);
    expect(meta.path).not.toContain('..');
    expect(meta.path).not.toContain(`${sep}etc${sep}`);
    expect(link.name).toBe('report.pdf');
    expect(sha256(await readFile(meta.path))).toBe(sha256(REPORT_PDF));
    const record = proxy.gateway.offload.store.get(link.uri)!;
    expect(record.filename).toBe('report.pdf');
    expect(record.path).toBe(meta.path);
  });
});

describe('markdown with a data: image', () => {
  let proxy: ProxyUnderTest;
  let direct: StdioConnection;
  beforeAll(async () => {
    [proxy, direct] = await Promise.all([startTableau(), connectTableau()]);
  });
  afterAll(async () => {
    await proxy?.close();
    await direct?.close();
  });

  test('the data URI is replaced in place by the artifact URI; the markdown around it stays; a note and a summary follow', async () => {
    const original = texts(await call(direct.client, 'markdown_with_image'))[0];
    const dataUri = `data:image/png;base64,${CHART_PNG.toString('base64')}`;
    expect(original).toContain(dataUri);

    const result = await call(proxy.client, 'markdown_with_image');
    const link = onlyLink(result);
    expect(result.content[0]).toEqual({ type: 'text', text: original.replace(dataUri, link.uri) });
    expect(texts(result)[0]).toContain(`![chart](${link.uri})`);
    expect(texts(result)[0].startsWith('# Revenue chart\n\nThe chart below')).toBe(true);
    expect(texts(result)[0].endsWith('except the north-west.')).toBe(true);

    expect(texts(result)[1]).toMatch(
      /^\[mcp-offload: 1 embedded payload in the text above is shown as an artifact:\/\/ stand-in; /,
    );
    const [summary] = summaries(result);
    expect(result.content[2]).toEqual({ type: 'text', text: summary });
    expect(summary).toContain('Type: image/png');
    expect(summary).toMatch(/^Dimensions: 20x20$/m);
    expect(link.mimeType).toBe('image/png');
    expect(sha256((await readBlob(proxy.client, link.uri)).bytes)).toBe(sha256(CHART_PNG));
  });
});

describe('the same image twice in one result', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    // Stored whatever its size (a 20x20 chart would stay inline for a vision model by default).
    proxy = await startTableau({ pipeline: { keepInline: { imageMaxBytes: 0 } } });
  });
  afterAll(() => proxy?.close());

  test('is stored once, and each place it stood still points at the artifact', async () => {
    const result = await call(proxy.client, 'same_chart_twice');
    expect(result.content.some((b) => b.type === 'image')).toBe(false);
    const link = onlyLink(result); // announced once
    expect(summaries(result)).toHaveLength(1);
    // What follows each caption, up to the next caption, must mention the artifact.
    const after = (caption: string) => {
      const start = result.content.findIndex((b) => b.type === 'text' && b.text === caption);
      const rest = result.content.slice(start + 1);
      const end = rest.findIndex((b) => b.type === 'text' && /^(Before|After):$/.test(b.text));
      return JSON.stringify(end === -1 ? rest : rest.slice(0, end));
    };
    expect(after('Before:')).toContain(link.uri);
    expect(after('After:')).toContain(link.uri);
  });
});

describe('look-alikes of base64', () => {
  let proxy: ProxyUnderTest;
  let direct: StdioConnection;
  beforeAll(async () => {
    [proxy, direct] = await Promise.all([startTableau(), connectTableau()]);
  });
  afterAll(async () => {
    await proxy?.close();
    await direct?.close();
  });

  test('hashes, a JWT, UUIDs, hex, prose, AAAA… and random base64 pass unchanged, as text and as JSON fields', async () => {
    const straight = await call(direct.client, 'false_positives');
    expect(straight.content).toHaveLength(9);
    expect(texts(straight).every((t) => t.length < 10_000)).toBe(true);
    const viaProxy = await call(proxy.client, 'false_positives');
    expect(viaProxy).toEqual(straight);
    expect(links(viaProxy)).toHaveLength(0);
    expect(await proxy.gateway.offload.store.list()).toHaveLength(0);
  });
});
