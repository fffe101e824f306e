// The size safety net, error results, dry run, and a store that cannot take what it is given.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKBOOK_PDF } from '../fixtures/pdf.mjs';
import type { StdioConnection } from '../helpers/fixtures.js';
import {
  artifactMeta,
  call,
  connectTableau,
  filesIn,
  links,
  onlyLink,
  sha256,
  startTableau,
  summaries,
  tableau,
  texts,
  expectSameResults,
} from '../helpers/pipeline.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { pino } from 'pino';

let direct: StdioConnection;
beforeAll(async () => {
  direct = await connectTableau();
});
afterAll(() => direct?.close());

describe('size safety net', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startTableau();
  });
  afterAll(() => proxy?.close());

  test('a JSON text over the client budget becomes a summary, a preview of its start and end and a link to a .json artifact of the same bytes', async () => {
    const original = texts(await call(direct.client, 'huge_json', { items: 2000 }))[0];
    expect(original.length).toBeGreaterThan(100_000);
    const result = await call(proxy.client, 'huge_json', { items: 2000 });

    const link = onlyLink(result);
    expect(link.mimeType).toBe('application/json');
    expect(link.uri).toMatch(/\.json$/);
    expect(link.size).toBe(Buffer.byteLength(original));

    const [summary, preview] = texts(result);
    expect(summary).toBe(summaries(result)[0]);
    expect(summary).toContain('Type: application/json');
    expect(summary).toMatch(/^File saved: \/.+\.json$/m);
    expect(preview.startsWith('Preview')).toBe(true);
    const shown = preview.slice(preview.indexOf('\n') + 1);
    const [head, tail] = shown.split(/\n… \[\d+ lines?, \d+ characters not shown\] …\n/);
    expect(original.startsWith(`${head}\n`)).toBe(true);
    expect(original.endsWith(`\n${tail}`)).toBe(true);
    expect(preview.length).toBeLessThan(700);
    expect(JSON.stringify(result).length).toBeLessThan(4000);

    const [meta] = artifactMeta(result);
    expect(await readFile(meta.path, 'utf8')).toBe(original);
    const { contents } = await proxy.client.readResource({ uri: link.uri });
    expect(contents).toEqual([{ uri: link.uri, mimeType: 'application/json', text: original }]);
  });

  test('a JSON text under the limit passes unchanged', async () => {
    const straight = await call(direct.client, 'huge_json', { items: 100 });
    expect(texts(straight)[0].length).toBeGreaterThan(4000);
    expect(texts(straight)[0].length).toBeLessThan(10_000);
    expect(await call(proxy.client, 'huge_json', { items: 100 })).toEqual(straight);
  });

  test('a raised inlineLimit lets the big text through unchanged', async () => {
    const raised = await startTableau({ pipeline: { inlineLimit: 1_000_000 } });
    try {
      expect(await call(raised.client, 'huge_json', { items: 2000 })).toEqual(
        await call(direct.client, 'huge_json', { items: 2000 }),
      );
      expect(await filesIn(raised.gateway.offload.store.dir)).toEqual([]);
    } finally {
      await raised.close();
    }
  });

  test('inlineTokens gives a limit in tokens (4 characters each); the smaller limit wins', async () => {
    const tokens = await startTableau({ pipeline: { inlineLimit: 1_000_000, inlineTokens: 1000 } });
    try {
      const over = await call(tokens.client, 'huge_json', { items: 100 }); // ~8 900 characters > 4 000
      expect(onlyLink(over).mimeType).toBe('application/json');
      expect(texts(over)[1].startsWith('Preview')).toBe(true);
      const under = await call(tokens.client, 'huge_json', { items: 10 }); // ~900 characters
      expect(under).toEqual(await call(direct.client, 'huge_json', { items: 10 }));
    } finally {
      await tokens.close();
    }
  });
});

describe('error results', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startTableau();
  });
  afterAll(() => proxy?.close());

  test('a short error stays inline, unchanged', async () => {
    const straight = await call(direct.client, 'error_big', { chars: 500 });
    expect(straight.isError).toBe(true);
    expect(await call(proxy.client, 'error_big', { chars: 500 })).toEqual(straight);
  });

  test('an error over errorLimit is cut, with a note naming the file that holds all of it', async () => {
    const original = texts(await call(direct.client, 'error_big', { chars: 50_000 }))[0];
    const result = await call(proxy.client, 'error_big', { chars: 50_000 });
    expect(result.isError).toBe(true);
    expect(result.content).toHaveLength(1);
    const text = texts(result)[0];
    expect(text.startsWith(original.slice(0, 20_000))).toBe(true);
    expect(text.length).toBeLessThan(20_500);
    const [meta] = artifactMeta(result);
    expect(text).toContain(
      `[error cut at 20000 of 50000 characters. The whole text is in ${meta.path} (${meta.uri}).]`,
    );
    expect(await readFile(meta.path, 'utf8')).toBe(original);
  });

  test('an error is never summarized away, even when it is larger than the inline limit', async () => {
    const result = await call(proxy.client, 'error_big', { chars: 15_000 });
    expect(result).toEqual(await call(direct.client, 'error_big', { chars: 15_000 }));
  });
});

describe('dry run', () => {
  test('each log line says what would be stored, naming the server and the tool once', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const proxy = await startProxy(testConfig([tableau()], { pipeline: { dryRun: true } }), { log });
    try {
      await call(proxy.client, 'download_workbook', { workbook_id: 'wb-1' });
      const dryRun = lines.filter((line) => line.includes('dry run: would store'));
      expect(dryRun).toHaveLength(1);
      expect(dryRun[0]!.match(/"server":/g)).toHaveLength(1);
      expect(dryRun[0]!.match(/"tool":/g)).toHaveLength(1);
      expect(JSON.parse(dryRun[0]!)).toMatchObject({
        server: 'tableau',
        tool: 'download_workbook',
        mimeType: 'application/pdf',
      });
    } finally {
      await proxy.close();
    }
  });

  test('results equal the upstream ones and no file is written', async () => {
    const proxy = await startTableau({ pipeline: { dryRun: true } });
    try {
      await proxy.client.listTools();
      const calls: [string, Record<string, unknown>][] = [
        ['download_workbook', { workbook_id: 'wb-1' }],
        ['get_view_as_pdf', { view_id: 'v-1' }],
        ['export_report', {}],
        ['markdown_with_image', {}],
        ['huge_json', { items: 2000 }],
        ['error_big', { chars: 50_000 }],
      ];
      await expectSameResults(proxy.client, direct.client, calls);
      expect(await filesIn(proxy.gateway.offload.store.dir)).toEqual([]);
      expect(proxy.gateway.offload.store.list()).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe('store faults', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'mcp-offload-pipeline-faults-'));
  });
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  /** A proxy whose artifact directory lies under a regular file, so it can never be created. */
  async function blockedProxy(): Promise<{ proxy: ProxyUnderTest; dir: string }> {
    const blocker = join(scratch, `file-${Math.random().toString(36).slice(2)}`);
    await writeFile(blocker, 'not a directory');
    const dir = join(blocker, 'sub');
    return { proxy: await startTableau({ artifacts: { dir } }), dir };
  }

  test('an artifact dir that cannot be created: the proxy serves, and payloads stay inline with a note', async () => {
    const { proxy } = await blockedProxy();
    try {
      const straight = await call(direct.client, 'download_workbook', { workbook_id: 'wb-1' });
      const result = await call(proxy.client, 'download_workbook', { workbook_id: 'wb-1' });
      expect(result.content[0]).toEqual(straight.content[0]); // the PDF, inline: nothing lost
      expect(texts(result)[0]).toContain(WORKBOOK_PDF.toString('base64'));
      const notes = texts(result).slice(1);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toContain('could not be stored');
      expect(links(result)).toEqual([]);
      expect(artifactMeta(result)).toEqual([]);
      // Other tools are unaffected.
      expect(await call(proxy.client, 'list_workbooks')).toEqual(await call(direct.client, 'list_workbooks'));
    } finally {
      await proxy.close().catch(() => undefined);
    }
  });

  test('the note says why the store is unusable (the directory and the reason), not an internal state', async () => {
    const { proxy, dir } = await blockedProxy();
    try {
      const note = texts(await call(proxy.client, 'download_workbook', { workbook_id: 'wb-1' }))[1];
      expect(note).toContain('could not be stored');
      expect(note).not.toMatch(/init\(\)/);
      expect(note).toContain(dir);
    } finally {
      await proxy.close().catch(() => undefined);
    }
  });

  test('maxArtifactBytes refuses the PDF with a note naming the limit, and leaves no file', async () => {
    const proxy = await startTableau({ artifacts: { maxArtifactBytes: 1000 } });
    try {
      const straight = await call(direct.client, 'download_workbook', { workbook_id: 'wb-1' });
      const result = await call(proxy.client, 'download_workbook', { workbook_id: 'wb-1' });
      expect(result.content[0]).toEqual(straight.content[0]);
      const note = texts(result)[1];
      expect(note).toContain('could not be stored');
      expect(note).toContain(`${WORKBOOK_PDF.length} bytes`);
      expect(note).toContain('limit of 1000 bytes');
      expect(links(result)).toEqual([]);
      expect(await filesIn(proxy.gateway.offload.store.dir)).toEqual([]);
      expect(sha256(Buffer.from(JSON.parse(texts(result)[0]).content, 'base64'))).toBe(sha256(WORKBOOK_PDF));
    } finally {
      await proxy.close();
    }
  });
});
