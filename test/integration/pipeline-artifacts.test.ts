// Stored artifacts as MCP resources and through the built-in tools, their isolation between
// client sessions, and artifact:// URIs as tool arguments (the reverse direction).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WORKBOOK_PDF } from '../fixtures/pdf.mjs';
import type { StdioConnection } from '../helpers/fixtures.js';
import {
  call,
  connectSecondClient,
  connectTableau,
  onlyLink,
  readBlob,
  sha256,
  startTableau,
  texts,
} from '../helpers/pipeline.js';
import type { ProxyUnderTest } from '../helpers/proxy.js';

let direct: StdioConnection;
let proxy: ProxyUnderTest;
let second: Client;
/** huge_json {items: 2000} as the upstream sends it. */
let jsonText: string;
let jsonUri: string;
let jsonSummary: string;
let pdfUri: string;

beforeAll(async () => {
  [direct, proxy] = await Promise.all([connectTableau(), startTableau({ pipeline: { argumentRefs: 'content' } })]);
  second = await connectSecondClient(proxy);
  jsonText = texts(await call(direct.client, 'huge_json', { items: 2000 }))[0];
  const stored = await call(proxy.client, 'huge_json', { items: 2000 });
  jsonUri = onlyLink(stored).uri;
  jsonSummary = texts(stored)[0]!;
  pdfUri = onlyLink(await call(proxy.client, 'download_workbook')).uri;
});
afterAll(async () => {
  await second?.close();
  await proxy?.close();
  await direct?.close();
});

const read = (client: Client, args: Record<string, unknown>) => call(client, 'artifact_read', args);

describe('artifacts as resources', () => {
  test('resources/list includes each artifact with its type and size', async () => {
    const { resources } = await proxy.client.listResources();
    expect(resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uri: jsonUri, mimeType: 'application/json', size: Buffer.byteLength(jsonText) }),
        expect.objectContaining({ uri: pdfUri, mimeType: 'application/pdf', size: WORKBOOK_PDF.length }),
      ]),
    );
  });

  test('resources/templates/list offers artifact://{+id}', async () => {
    const { resourceTemplates } = await proxy.client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual(expect.objectContaining({ uriTemplate: 'artifact://{+id}' }));
  });

  test('resources/read gives JSON back as text and a PDF as a blob', async () => {
    expect((await proxy.client.readResource({ uri: jsonUri })).contents).toEqual([
      { uri: jsonUri, mimeType: 'application/json', text: jsonText },
    ]);
    expect(sha256((await readBlob(proxy.client, pdfUri)).bytes)).toBe(sha256(WORKBOOK_PDF));
  });

  test('an unknown artifact:// URI is "not found"', async () => {
    await expect(proxy.client.readResource({ uri: 'artifact://tableau/nothing_000000000000.pdf' })).rejects.toThrow(
      /Resource artifact:\/\/tableau\/nothing_000000000000\.pdf not found/,
    );
  });
});

describe('artifact_list and artifact_read', () => {
  test('artifact_list lists the session artifacts, filtered by tool on request', async () => {
    const all = await call(proxy.client, 'artifact_list');
    expect(all.isError).toBeFalsy();
    expect(texts(all)[0]).toContain(jsonUri);
    expect(texts(all)[0]).toContain(pdfUri);
    const onlyJson = texts(await call(proxy.client, 'artifact_list', { tool: 'huge_json' }))[0];
    expect(onlyJson).toContain(jsonUri);
    expect(onlyJson).not.toContain(pdfUri);
  });

  test('query: a JSONPath into a JSON artifact', async () => {
    const result = await read(proxy.client, { uri: jsonUri, query: '$[0]' });
    expect(texts(result)[0]).toBe(`[JSONPath $[0]]\n${JSON.stringify(JSON.parse(jsonText)[0], null, 2)}`);
  });

  test('query: a filter selects by value', async () => {
    const result = await read(proxy.client, { uri: jsonUri, query: '$[?(@.id > 1997)].name' });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(texts(result)[0].split('\n').slice(1).join('\n'))).toEqual(['item 1998', 'item 1999']);
  });

  test.each([
    ['a syntax error', '$[?(@.id >'],
    ['code in a filter', '$[?(process.exit(1))]'],
  ])("query with %s: a tool error in plain words, never the library's", async (_what, query) => {
    const result = await read(proxy.client, { uri: jsonUri, query });
    expect(result.isError).toBe(true);
    const text = texts(result)[0];
    expect(text).toContain(`the JSONPath query ${JSON.stringify(query)} could not be evaluated (`);
    expect(text).toMatch(/filter with \[\?\(@\.field > 10/);
    expect(text).not.toMatch(/Eval \[\?\(expr\)\] prevented/);
  });

  test('the summary and artifact_read count the same lines', async () => {
    const counted = /^Lines: (\d+)/m.exec(jsonSummary)![1];
    const header = texts(await read(proxy.client, { uri: jsonUri, lines: '1-3' }))[0].split('\n')[0];
    expect(header).toMatch(new RegExp(`^\\[lines 1-3 of ${counted} \\(`));
  });

  test('lines: a line range', async () => {
    const lines = jsonText.split('\n');
    const result = await read(proxy.client, { uri: jsonUri, lines: '1-3' });
    const [header, ...body] = texts(result)[0].split('\n');
    expect(header).toMatch(new RegExp(`^\\[lines 1-3 of ${lines.length} \\(`));
    expect(body).toEqual(lines.slice(0, 3));
  });

  test('pattern: matching lines with their numbers', async () => {
    const lines = jsonText.split('\n');
    const at = lines.indexOf('    "name": "item 1999",');
    expect(at).toBeGreaterThan(0);
    const result = await read(proxy.client, { uri: jsonUri, pattern: 'item 1999"' });
    expect(texts(result)[0]).toBe(`[lines matching /item 1999"/i]\n${at + 1}: ${lines[at]}`);
  });

  test('offset and length: a byte range of the PDF, in base64', async () => {
    const result = await read(proxy.client, { uri: pdfUri, offset: 100, length: 50 });
    expect(texts(result)[0]).toBe(
      `[bytes 100-150 of ${WORKBOOK_PDF.length} (base64)]\n${WORKBOOK_PDF.subarray(100, 150).toString('base64')}`,
    );
  });

  test('a binary artifact read without a range is described, not dumped', async () => {
    const text = texts(await read(proxy.client, { uri: pdfUri }))[0];
    expect(text).toContain('application/pdf');
    expect(text.length).toBeLessThan(500);
  });

  test('maxChars cuts the answer and says so', async () => {
    const result = await read(proxy.client, { uri: jsonUri, maxChars: 100 });
    const text = texts(result)[0];
    expect(text).toContain(`… [cut at 100 of ${jsonText.length} characters; narrow the range or query]`);
    expect(text.length).toBeLessThan(300);
  });

  test('an unknown URI is a tool error', async () => {
    const result = await read(proxy.client, { uri: 'artifact://tableau/nothing_000000000000.json' });
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toMatch(/no artifact/);
  });
});

describe('another client session', () => {
  test('cannot list the first session’s artifacts', async () => {
    const { resources } = await second.listResources();
    expect(resources.map((r) => r.uri)).not.toContain(jsonUri);
    expect(resources.map((r) => r.uri)).not.toContain(pdfUri);
    expect(texts(await call(second, 'artifact_list'))[0]).toBe('No artifacts stored in this session.');
  });

  test('cannot read them, as a resource or with artifact_read', async () => {
    await expect(second.readResource({ uri: jsonUri })).rejects.toThrow(/not found/);
    const result = await read(second, { uri: jsonUri, lines: '1-3' });
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toMatch(/no artifact/);
  });

  test('cannot tell an artifact of another session from one that does not exist (same error)', async () => {
    const missing = jsonUri.replace(/_[0-9a-f]{12}\.json$/, '_000000000000.json');
    const errorOf = async (uri: string) => {
      try {
        await second.readResource({ uri });
        return 'no error';
      } catch (error) {
        return { code: (error as { code?: unknown }).code, message: (error as Error).message.replace(uri, '<uri>') };
      }
    };
    expect(await errorOf(missing)).toEqual(await errorOf(jsonUri));
  });

  test('cannot have them put into its tool arguments', async () => {
    expect(texts(await call(second, 'echo_arg', { value: jsonUri }))[0]).toBe(
      `length=${jsonUri.length} sha256=${sha256(jsonUri)}`,
    );
  });

  test('becomes an owner when it produces the same bytes itself, and can then read them', async () => {
    const link = onlyLink(await call(second, 'download_workbook'));
    expect(link.uri).toBe(pdfUri);
    expect(sha256((await readBlob(second, pdfUri)).bytes)).toBe(sha256(WORKBOOK_PDF));
    expect((await second.listResources()).resources.map((r) => r.uri)).toEqual([pdfUri]);
    // Still not the first session's JSON.
    await expect(second.readResource({ uri: jsonUri })).rejects.toThrow(/not found/);
  });
});

describe('artifact:// URIs as tool arguments (argumentRefs: content)', () => {
  test('a text artifact is replaced by its text', async () => {
    const answer = texts(await call(proxy.client, 'echo_arg', { value: jsonUri }))[0];
    expect(answer).toBe(`length=${jsonText.length} sha256=${sha256(jsonText)}`);
  });

  test('a binary artifact is replaced by its base64', async () => {
    const b64 = WORKBOOK_PDF.toString('base64');
    expect(texts(await call(proxy.client, 'echo_arg', { value: pdfUri }))[0]).toBe(
      `length=${b64.length} sha256=${sha256(b64)}`,
    );
  });

  test('a URI inside a longer string, or an unknown one, is left alone', async () => {
    const inside = `see ${jsonUri}`;
    expect(texts(await call(proxy.client, 'echo_arg', { value: inside }))[0]).toBe(
      `length=${inside.length} sha256=${sha256(inside)}`,
    );
    const unknown = 'artifact://tableau/nothing_000000000000.json';
    expect(texts(await call(proxy.client, 'echo_arg', { value: unknown }))[0]).toBe(
      `length=${unknown.length} sha256=${sha256(unknown)}`,
    );
  });

  test('with argumentRefs restore (the default) a URI cited on purpose passes as it is', async () => {
    const plain = await startTableau();
    try {
      const uri = onlyLink(await call(plain.client, 'huge_json', { items: 2000 })).uri;
      expect(texts(await call(plain.client, 'echo_arg', { value: uri }))[0]).toBe(
        `length=${uri.length} sha256=${sha256(uri)}`,
      );
    } finally {
      await plain.close();
    }
  });
});
