// Modes and rule precedence, transformer modules, and a YAML config whose rules reach the pipeline.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { loadConfigFile } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { silentLogger } from '../../src/logger.js';
import { REPORT_PDF, WORKBOOK_PDF } from '../fixtures/pdf.mjs';
import { NODE, type StdioConnection } from '../helpers/fixtures.js';
import {
  TABLEAU,
  artifactMeta,
  call,
  connectTableau,
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

let direct: StdioConnection;
let scratch: string;
beforeAll(async () => {
  [direct, scratch] = await Promise.all([connectTableau(), mkdtemp(join(tmpdir(), 'mcp-offload-pipeline-rules-'))]);
});
afterAll(async () => {
  await direct?.close();
  await rm(scratch, { recursive: true, force: true });
});

const extracted = (result: Awaited<ReturnType<typeof call>>) =>
  links(result).some((l) => l.uri.startsWith('artifact://'));

describe('mode passthrough everywhere', () => {
  test('every result and the output schema equal the upstream ones', async () => {
    const proxy = await startTableau({ pipeline: { mode: 'passthrough' } });
    try {
      const calls: [string, Record<string, unknown>][] = [
        ['download_workbook', {}],
        ['get_view_as_pdf', {}],
        ['export_report', {}],
        ['markdown_with_image', {}],
        ['huge_json', { items: 2000 }],
        ['error_big', { chars: 50_000 }],
      ];
      await expectSameResults(proxy.client, direct.client, calls);
      expect(
        (await proxy.client.listTools()).tools.filter((t) => t.name !== 'artifact_list' && t.name !== 'artifact_read'),
      ).toEqual((await direct.client.listTools()).tools);
    } finally {
      await proxy.close();
    }
  });
});

describe('precedence: per-tool over per-server over global; later rules of a level win', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startTableau({
      pipeline: { mode: 'auto' },
      rules: [
        // A per-tool rule written before the per-server rule still wins over it.
        { server: 'tableau', tool: 'download_workbook', settings: { mode: 'auto' } },
        { server: 'tableau', settings: { mode: 'passthrough', inlineLimit: 1_000_000 } },
        { server: 'tab*', tool: 'export_*', settings: { mode: 'auto' } },
        { server: 'tableau', tool: 'export_report', settings: { mode: 'passthrough' } },
        { server: 'tableau', tool: 'huge_json', settings: { mode: 'passthrough' } },
        { server: 'tableau', tool: 'huge_json', settings: { mode: 'auto' } },
        { server: 'tableau', tool: 'markdown_with_image', settings: { mode: 'auto' } },
      ],
    });
  });
  afterAll(() => proxy?.close());

  test('per-tool auto wins over per-server passthrough', async () => {
    const result = await call(proxy.client, 'download_workbook');
    expect(onlyLink(result).mimeType).toBe('application/pdf');
  });

  test('per-server passthrough wins over the global auto', async () => {
    expect(await call(proxy.client, 'get_view_as_pdf')).toEqual(await call(direct.client, 'get_view_as_pdf'));
  });

  test('the later of two matching per-tool rules wins (globs included)', async () => {
    expect(await call(proxy.client, 'export_report')).toEqual(await call(direct.client, 'export_report'));
  });

  test('settings merge key by key: the per-server inlineLimit stays under a per-tool mode', async () => {
    // huge_json: mode auto from the last per-tool rule, inlineLimit 1 000 000 from the per-server rule.
    expect(await call(proxy.client, 'huge_json', { items: 2000 })).toEqual(
      await call(direct.client, 'huge_json', { items: 2000 }),
    );
    // markdown_with_image: auto too, and its data: URI is still extracted (binary layers do not depend on the limit).
    expect(onlyLink(await call(proxy.client, 'markdown_with_image')).mimeType).toBe('image/png');
  });

  test('per-server auto wins over a global passthrough', async () => {
    const other = await startTableau({
      pipeline: { mode: 'passthrough' },
      rules: [{ server: 'tableau', settings: { mode: 'auto' } }],
    });
    try {
      expect(extracted(await call(other.client, 'download_workbook'))).toBe(true);
    } finally {
      await other.close();
    }
  });

  test("a top-level per-server rule overrides the server's own pipeline block", async () => {
    const config = testConfig([{ ...tableau(), pipeline: { mode: 'passthrough' } }], {
      rules: [{ server: 'tableau', settings: { mode: 'auto' } }],
    });
    const other = await startProxy(config);
    try {
      expect(extracted(await call(other.client, 'download_workbook'))).toBe(true);
    } finally {
      await other.close();
    }
  });
});

describe('two upstreams: rules match the server and the upstream tool name, not the prefixed one', () => {
  test('a per-server rule touches only its server; a per-tool rule uses the unprefixed tool name', async () => {
    const proxy = await startProxy(
      testConfig([tableau('tableau'), tableau('mirror')], {
        rules: [
          { server: 'tableau', settings: { mode: 'passthrough' } },
          { server: 'mirror', tool: 'list_workbooks', settings: { mode: 'file' } },
        ],
      }),
    );
    try {
      expect(await call(proxy.client, 'tableau__download_workbook')).toEqual(
        await call(direct.client, 'download_workbook'),
      );
      const mirrored = await call(proxy.client, 'mirror__download_workbook');
      expect(onlyLink(mirrored).uri).toMatch(/^artifact:\/\/mirror\/download_workbook_[0-9a-f]{12}\.pdf$/);
      expect(onlyLink(await call(proxy.client, 'mirror__list_workbooks')).mimeType).toBe('application/json');
      expect(await call(proxy.client, 'tableau__list_workbooks')).toEqual(await call(direct.client, 'list_workbooks'));
    } finally {
      await proxy.close();
    }
  });
});

describe('mode file (the ABP behavior)', () => {
  let proxy: ProxyUnderTest;
  beforeAll(async () => {
    proxy = await startTableau({ rules: [{ server: 'tableau', settings: { mode: 'file' } }] });
  });
  afterAll(() => proxy?.close());

  test('list_workbooks is saved as a .json file and the model gets the summary', async () => {
    const original = JSON.parse(texts(await call(direct.client, 'list_workbooks'))[0]);
    const result = await call(proxy.client, 'list_workbooks');
    const link = onlyLink(result);
    expect(link.mimeType).toBe('application/json');
    expect(link.uri).toMatch(/\.json$/);
    expect(result.content.map((b) => b.type)).toEqual(['text', 'resource_link']);
    const [summary] = summaries(result);
    expect(summary).toMatch(/^File saved: \/.+\.json$/m);
    expect(summary).toContain('Type: application/json');
    expect(JSON.parse(await readFile(artifactMeta(result)[0].path, 'utf8'))).toEqual(original);
  });

  test('errors stay inline', async () => {
    expect(await call(proxy.client, 'error_big', { chars: 500 })).toEqual(
      await call(direct.client, 'error_big', { chars: 500 }),
    );
  });

  test('BinaryData in the result is saved as its own file with the siblings as metadata', async () => {
    const result = await call(proxy.client, 'export_report');
    const link = onlyLink(result);
    expect(link).toMatchObject({ mimeType: 'application/pdf', name: 'report.pdf', size: REPORT_PDF.length });
    expect(summaries(result)[0]).toMatch(/^Metadata: \{"pageCount":3\}$/m);
    expect(artifactMeta(result)[0].sha256).toBe(sha256(REPORT_PDF));
  });

  test('structuredContent replaced by a reference still passes the SDK client validation', async () => {
    await proxy.client.listTools();
    const result = await call(proxy.client, 'get_view_as_pdf');
    const link = onlyLink(result);
    expect(result.structuredContent).toMatchObject({ $artifact: link.uri, mimeType: 'application/json' });
  });
});

describe('transform modules', () => {
  async function module(name: string, source: string): Promise<string> {
    const path = join(scratch, `${name}-${Math.random().toString(36).slice(2)}.mjs`);
    await writeFile(path, source);
    return path;
  }

  test('a transformer rewrites the result first', async () => {
    const transform = await module(
      'rename',
      "export default (result, ctx) => ({ ...result, content: [{ type: 'text', text: 'transformed ' + ctx.tool }] });\n",
    );
    const proxy = await startTableau({
      rules: [{ server: 'tableau', tool: 'list_workbooks', settings: { transform } }],
    });
    try {
      expect((await call(proxy.client, 'list_workbooks')).content).toEqual([
        { type: 'text', text: 'transformed list_workbooks' },
      ]);
      // Other tools are not transformed.
      expect(await call(proxy.client, 'echo_arg', { value: 'x' })).toEqual(
        await call(direct.client, 'echo_arg', { value: 'x' }),
      );
    } finally {
      await proxy.close();
    }
  });

  test('a transformer that throws, or returns no result, is skipped: the other layers still run', async () => {
    const throwing = await module('throws', "export default () => { throw new Error('boom'); };\n");
    const empty = await module('empty', 'export default () => 42;\n');
    const proxy = await startTableau({
      rules: [
        { server: 'tableau', tool: 'download_workbook', settings: { transform: throwing } },
        { server: 'tableau', tool: 'export_report', settings: { transform: empty } },
        { server: 'tableau', tool: 'list_workbooks', settings: { transform: throwing } },
      ],
    });
    try {
      expect(onlyLink(await call(proxy.client, 'download_workbook')).mimeType).toBe('application/pdf');
      expect(onlyLink(await call(proxy.client, 'export_report')).mimeType).toBe('application/pdf');
      expect(await call(proxy.client, 'list_workbooks')).toEqual(await call(direct.client, 'list_workbooks'));
    } finally {
      await proxy.close();
    }
  });

  test('a transformer can store what it wants through ctx.save', async () => {
    const transform = await module(
      'save',
      'export default async (result, ctx) => {\n' +
        "  const outcome = await ctx.save({ data: { text: 'kept aside by ' + ctx.tool }, mimeType: 'text/plain', source: 'transform' });\n" +
        "  return { content: [{ type: 'text', text: outcome.ok === true ? outcome.extraction.summary : 'not saved' }] };\n" +
        '};\n',
    );
    const proxy = await startTableau({
      rules: [{ server: 'tableau', tool: 'list_workbooks', settings: { transform } }],
    });
    try {
      const result = await call(proxy.client, 'list_workbooks');
      const [meta] = artifactMeta(result);
      expect(meta).toMatchObject({ mimeType: 'text/plain', source: 'transform' });
      expect(texts(result)[0]).toContain(`File saved: ${meta.path}`);
      expect(await readFile(meta.path, 'utf8')).toBe('kept aside by list_workbooks');
    } finally {
      await proxy.close();
    }
  });
});

describe('a YAML config', () => {
  test('rules, pipeline, artifacts and a relative transform path reach the pipeline', async () => {
    const dir = await mkdtemp(join(scratch, 'yaml-'));
    await writeFile(
      join(dir, 'mark.mjs'),
      "export default (result) => ({ ...result, content: [...result.content, { type: 'text', text: 'marked' }] });\n",
    );
    const file = join(dir, 'mcp-offload.yaml');
    await writeFile(
      file,
      [
        'logLevel: silent',
        'artifacts:',
        `  dir: ${JSON.stringify(join(dir, 'artifacts'))}`,
        'pipeline:',
        '  previewChars: 50',
        'servers:',
        '  tableau:',
        `    command: ${JSON.stringify(NODE)}`,
        `    args: [${JSON.stringify(TABLEAU)}]`,
        'rules:',
        '  - server: tableau',
        '    tool: download_workbook',
        '    fields:',
        '      - path: content',
        '        mimeType: application/pdf',
        "        filename: '{name}.pdf'",
        `        summary: "Downloaded workbook '{name}' ({size_human})"`,
        '  - server: tableau',
        '    tool: list_workbooks',
        '    transform: ./mark.mjs',
        '  - server: tableau',
        '    tool: error_big',
        '    errorLimit: 100',
        '',
      ].join('\n'),
    );
    const config = await loadConfigFile(file);
    expect(config.rules).toHaveLength(3);
    const gateway = new Gateway(config, silentLogger);
    await gateway.start();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.createSession().connect(serverSide);
    const client = new Client({ name: 'yaml-client', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const workbook = await call(client, 'download_workbook');
      expect(summaries(workbook)[0].startsWith("Downloaded workbook 'Sales Dashboard' (")).toBe(true);
      const link = onlyLink(workbook);
      expect(link.name).toBe('Sales Dashboard.pdf');
      expect(artifactMeta(workbook)[0].path.startsWith(join(dir, 'artifacts'))).toBe(true);
      expect(sha256(await readFile(artifactMeta(workbook)[0].path))).toBe(sha256(WORKBOOK_PDF));

      expect(texts(await call(client, 'list_workbooks')).at(-1)).toBe('marked');
      // Long enough that the cut, its note and link take less room than the error did.
      expect(texts(await call(client, 'error_big', { chars: 5000 }))[0]).toContain(
        '[error cut at 100 of 5000 characters.',
      );
      const huge = await call(client, 'huge_json', { items: 2000 });
      expect(texts(huge)[1]).toMatch(/^Preview \(its start and its end\):\n/);
      expect(texts(huge)[1].length).toBeLessThan(120);
    } finally {
      await client.close().catch(() => undefined);
      await gateway.stop();
    }
  });
});
