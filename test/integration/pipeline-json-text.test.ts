// A payload of megabytes inside JSON carried by a text block, from a real stdio server: on the wire
// the text's literal is full of escapes, so the reader keeps the inner payload as bytes with its marker
// inlaid in the text (wire/inlay.ts). The client must see exactly what it would without that:
// the reference in place of the field (rest of the text byte for byte), or with passthrough the text
// as the server sent it; no kept bytes may be left behind.
import { readFile } from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RuleConfig } from '../../src/pipeline/settings.js';
import { blobsHeldInProcess } from '../../src/wire/blob-table.js';
import { FIXTURES, NODE, connectDirect, type StdioConnection } from '../helpers/fixtures.js';
import { artifactMeta, call, onlyLink, sha256, summaries, texts } from '../helpers/pipeline.js';
import { startProxy, testConfig, type ProxyUnderTest, type TestOptions } from '../helpers/proxy.js';

const big = { name: 'big', command: NODE, args: [FIXTURES.bigResult, '--name', 'big'] };
const MB = 2;
const HEAD = '{"name":"report","format":"pdf","content":';

let direct: StdioConnection;
let directText: string;
let pdf: Buffer;

beforeAll(async () => {
  direct = await connectDirect(NODE, [FIXTURES.bigResult, '--name', 'big']);
  [directText] = texts(await call(direct.client, 'big-json-pdf', { mb: MB }));
  pdf = Buffer.from(JSON.parse(directText).content, 'base64');
});
afterAll(() => direct?.close());

async function withProxy(options: TestOptions, check: (result: CallToolResult) => Promise<void>): Promise<void> {
  const heldBefore = blobsHeldInProcess();
  const proxy: ProxyUnderTest = await startProxy(testConfig([big], options));
  try {
    await check(await call(proxy.client, 'big-json-pdf', { mb: MB }));
    expect(blobsHeldInProcess()).toBe(heldBefore);
  } finally {
    await proxy.close();
  }
}

test("default settings: the field becomes a reference, the rest of the JSON text is the server's own", async () => {
  await withProxy({}, async (result) => {
    const [text] = texts(result);
    const [meta] = artifactMeta(result);
    expect(text.startsWith(HEAD)).toBe(true);
    expect(text.endsWith('}}')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      name: 'report',
      format: 'pdf',
      content: { $artifact: meta.uri, path: meta.path, mimeType: 'application/pdf', size: pdf.length },
    });
    expect(onlyLink(result)).toMatchObject({ mimeType: 'application/pdf', size: pdf.length });
    expect(sha256(await readFile(meta.path))).toBe(sha256(pdf));
    expect(JSON.stringify(result).length).toBeLessThan(3000);
  });
});

test('a field rule (the Tableau shape): found by the rule, summarized with its template and sibling fields', async () => {
  const rule: RuleConfig = {
    server: 'big',
    tool: 'big-json-pdf',
    settings: {
      fields: [
        {
          path: 'content',
          mimeType: 'application/pdf',
          filename: '{name}.pdf',
          summary: "Report '{name}' ({size_human})",
        },
      ],
    },
  };
  await withProxy({ rules: [rule] }, async (result) => {
    const [meta] = artifactMeta(result);
    expect(meta.source).toBe('content[0]:content');
    expect(summaries(result)[0].startsWith("Report 'report' (")).toBe(true);
    expect(summaries(result)[0]).toMatch(/^Metadata: \{"name":"report","format":"pdf"\}$/m);
    expect(summaries(result)[0]).not.toContain('mcp-offload-blob');
    expect(JSON.parse(texts(result)[0]).content.$artifact).toBe(meta.uri);
    expect(sha256(await readFile(meta.path))).toBe(sha256(pdf));
  });
});

test('passthrough: the client gets the very text the server sent', async () => {
  await withProxy({ pipeline: { mode: 'passthrough' } }, async (result) => {
    expect(result.content).toEqual([{ type: 'text', text: directText }]);
  });
});

test('mode file: the whole document is stored, payload and all', async () => {
  await withProxy({ pipeline: { mode: 'file' } }, async (result) => {
    const [meta] = artifactMeta(result);
    expect(JSON.parse(await readFile(meta.path, 'utf8'))).toEqual(JSON.parse(directText));
  });
});
