// The proxy in front of real servers from npm (server-filesystem, server-memory), in its default mode.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeAllDirect, connectDirect, NODE } from '../helpers/fixtures.js';
import { connectAs, startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { artifactMeta, call, links, sha256, summaries } from '../helpers/pipeline.js';
import { filesystem, filesystemRoot, FILESYSTEM_ENTRY, memory, MEMORY_ENTRY } from '../helpers/third-party.js';
import { DEFAULTS } from '../../src/config/types.js';
import { noise, padTo, png, toUrlSafe } from '../unit/detect-fixtures.js';
import { texts } from '../helpers/pipeline.js';

const root = filesystemRoot();
const memoryFile = join(tmpdir(), `mcp-offload-memory-${process.pid}.jsonl`);
let files: ProxyUnderTest;
let graph: ProxyUnderTest;

beforeAll(async () => {
  [files, graph] = await Promise.all([
    startProxy(testConfig([filesystem(root)])),
    startProxy(testConfig([memory(memoryFile)])),
  ]);
});
afterAll(async () => {
  await Promise.all([files?.close(), graph?.close(), closeAllDirect()]);
  await rm(root, { recursive: true, force: true });
  await rm(memoryFile, { force: true });
});

/** Bytes of the tools/list answer, without the proxy's own two artifact tools. */
async function listedBytes(client: ProxyUnderTest['client']): Promise<number> {
  const own = new Set([DEFAULTS.artifacts.tools.listName, DEFAULTS.artifacts.tools.readName]);
  const { tools } = await client.listTools();
  return JSON.stringify({ tools: tools.filter((t) => !own.has(t.name)) }).length;
}

describe.each([
  ['server-filesystem', () => files, [FILESYSTEM_ENTRY, root]],
  ['server-memory', () => graph, [MEMORY_ENTRY]],
] as const)('%s: the proxy costs little context', (_name, proxy, args) => {
  test('tools/list through the proxy is at most 10 % larger than direct (the artifact tools aside)', async () => {
    const direct = await connectDirect(NODE, [...args], { MEMORY_FILE_PATH: memoryFile });
    const straight = await listedBytes(direct.client);
    const proxied = await listedBytes(proxy().client);
    expect(proxied / straight).toBeLessThanOrEqual(1.1);
  });
});

describe('server-filesystem', () => {
  test('a file too big for the context, sent in content and structuredContent, is stored once and referenced from both', async () => {
    const text = Array.from({ length: 8000 }, (_, i) => `line ${i}: ${'lorem ipsum '.repeat(3)}`).join('\n');
    await writeFile(join(root, 'big.log'), text);
    // The SDK client validates structuredContent against the advertised output schema: this passes only if it fits.
    const result = await call(files.client, 'read_text_file', { path: join(root, 'big.log') });
    const meta = artifactMeta(result);
    expect(meta).toHaveLength(1);
    expect(meta[0]!.sources).toEqual(['structuredContent.content', 'content[0]']);
    expect(sha256(await readFile(meta[0]!.path))).toBe(sha256(text));
    expect(result.structuredContent).toEqual({ content: meta[0]!.uri });
    expect(summaries(result)).toHaveLength(1);
    expect(links(result).map((l) => l.uri)).toEqual([meta[0]!.uri]);
  });
});

describe('server-memory', () => {
  test('a graph too big for the context is stored once as the JSON the server wrote; the reference fits the advertised schema', async () => {
    const entities = Array.from({ length: 1500 }, (_, i) => ({
      name: `e${i}`,
      entityType: 'thing',
      observations: [`fact ${i}`],
    }));
    await call(graph.client, 'create_entities', { entities });
    const result = await call(graph.client, 'read_graph');
    const meta = artifactMeta(result);
    expect(meta).toHaveLength(1);
    expect(result.structuredContent).toMatchObject({ $artifact: meta[0]!.uri, mimeType: 'application/json' });
    const stored = await readFile(meta[0]!.path, 'utf8');
    expect((JSON.parse(stored) as { entities: unknown[] }).entities).toHaveLength(1500);
  });
});

describe('server-filesystem: read, edit one word, write back', () => {
  const image = padTo(png(16, 16), 6000).toString('base64');
  const other = padTo(png(8, 8), 3000).toString('base64');
  const font = noise(4000, 7).toString('base64');
  const cases: [string, string][] = [
    ['report.md', `# Quarterly report\n\n![chart](data:image/png;base64,${image})\n\nSee the chart above.\n`],
    [
      'theme.css',
      `/* Quarterly theme */\n.logo { background: url(data:image/png;base64,${image}); }\n` +
        `@font-face { src: url("data:font/woff2;base64,${font}") format("woff2"); }\n.icon { background: url('data:image/png;base64,${toUrlSafe(other)}'); }\n`,
    ],
    [
      'data.json',
      `{\n  "title": "Quarterly",\n  "thumbnail": "${image}",\n  "escaped": "${other.replace(/\//g, '\\/')}",\n  "n": 1.50\n}\n`,
    ],
    ['page.html', `<!doctype html>\n<p>Quarterly</p>\n<img alt="chart" src="data:image/png;base64,${image}">\n`],
    [
      'logo.svg',
      `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><title>Quarterly</title>` +
        `<image href="data:image/png;base64,${image}" width="16" height="16"/></svg>\n`,
    ],
  ];

  test.each(cases)('%s comes back byte for byte, with only the edited word changed', async (name, original) => {
    const path = join(root, name);
    await writeFile(path, original);
    const read = await call(files.client, 'read_text_file', { path });
    const shown = texts(read)[0]!;
    expect(shown).not.toContain(image);
    expect(shown).toMatch(/artifact:\/\//);
    expect(texts(read).join('\n')).toMatch(
      /stand-in; sent back through mcp-offload in a tool call, edited or not, the text gets the originals back/,
    );
    const written = await call(files.client, 'write_file', { path, content: shown.replace('Quarterly', 'Annual') });
    expect(written.isError).toBeFalsy();
    expect(sha256(await readFile(path))).toBe(sha256(original.replace('Quarterly', 'Annual')));
  });

  test('a stand-in whose artifact is gone stops the call: the file is not overwritten', async () => {
    const path = join(root, 'gone.md');
    const original = `# Notes\n\n![x](data:image/png;base64,${padTo(png(4, 4), 5000).toString('base64')})\n`;
    await writeFile(path, original);
    const read = await call(files.client, 'read_text_file', { path });
    const [meta] = artifactMeta(read);
    await rm(meta!.path);
    await files.gateway.offload.store.gc();
    const written = await call(files.client, 'write_file', { path, content: texts(read)[0]! });
    expect(written.isError).toBe(true);
    expect(texts(written)[0]).toMatch(
      /^mcp-offload did not send this call: the arguments hold artifact:\/\/\S+, which mcp-offload does not hold for this client/,
    );
    expect(await readFile(path, 'utf8')).toBe(original);
  });
});

test('with argumentRefs off the stand-ins go upstream as they are, and the note says the text is not the original', async () => {
  const plain = await startProxy(testConfig([filesystem(root, 'plainfs')], { pipeline: { argumentRefs: 'off' } }));
  try {
    const path = join(root, 'plain.md');
    await writeFile(path, `# Plain\n\n![x](data:image/png;base64,${padTo(png(4, 4), 5000).toString('base64')})\n`);
    const read = await call(plain.client, 'read_text_file', { path });
    expect(texts(read).join('\n')).toMatch(/the text above is not the original, do not write it back as it is/);
    await call(plain.client, 'write_file', { path, content: texts(read)[0]! });
    expect(await readFile(path, 'utf8')).toMatch(/!\[x\]\(artifact:\/\/plainfs\/read_text_file_[0-9a-f]{12}\.png\)/);
  } finally {
    await plain.close();
  }
});

describe('server-filesystem: budgets fit the client', () => {
  /** Source code of about `chars` characters, in lines a model edits. */
  function sourceCode(chars: number): string {
    const lines: string[] = [];
    for (let i = 0; lines.join('\n').length < chars; i++) {
      lines.push(`export function step${i}(input: number): number {`, `  return input * ${i} + 1;`, '}', '');
    }
    return lines.join('\n');
  }
  const clients = new Map<string, Awaited<ReturnType<typeof connectAs>>>();
  async function readAs(clientName: string, name: string, text: string) {
    let client = clients.get(clientName);
    if (!client) {
      client = await connectAs(files.gateway, { name: clientName, version: '1.0.0' });
      clients.set(clientName, client);
    }
    const path = join(root, name);
    await writeFile(path, text);
    return call(client, 'read_text_file', { path });
  }
  afterAll(async () => {
    await Promise.all([...clients.values()].map((client) => client.close()));
  });

  test('a 16 KB source file reaches an unknown client whole, as the server sent it', async () => {
    const code = sourceCode(16_000);
    const result = await readAs('some-agent', 'small.ts', code);
    expect(texts(result)).toEqual([code]);
    expect(result.structuredContent).toEqual({ content: code });
    expect(artifactMeta(result)).toEqual([]);
  });

  test('a 16 KB dump (minified code on one line) is stored: a model cannot use it inline', async () => {
    const minified = Array.from({ length: 600 }, (_, i) => `function f${i}(a){return a*${i}+1}`).join(';');
    expect(minified.length).toBeGreaterThan(16_000);
    const result = await readAs('some-agent', 'bundle.min.js', minified);
    const [meta] = artifactMeta(result);
    expect(sha256(await readFile(meta!.path))).toBe(sha256(minified));
    expect(result.structuredContent).toEqual({ content: meta!.uri });
  });

  test('Claude Code keeps 45 000 characters of code inline; an unknown client gets them stored', async () => {
    const code = sourceCode(45_000);
    expect(texts(await readAs('claude-code', 'mid.ts', code))).toEqual([code]);
    expect(artifactMeta(await readAs('some-agent', 'mid.ts', code))).toHaveLength(1);
  });

  test('Claude Desktop (claude-ai) keeps 90 000 characters inline; Claude Code gets them stored', async () => {
    const code = sourceCode(90_000);
    expect(texts(await readAs('claude-ai', 'large.ts', code))).toEqual([code]);
    expect(artifactMeta(await readAs('claude-code', 'large.ts', code))).toHaveLength(1);
  });

  test('Codex cuts at 256 lines: 300 short lines are stored for it, with a preview of their start and end', async () => {
    const log = Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n');
    expect(texts(await readAs('claude-code', 'short.log', log))).toEqual([log]);
    const result = await readAs('codex-mcp-client', 'short.log', log);
    const [meta] = artifactMeta(result);
    expect(await readFile(meta!.path, 'utf8')).toBe(log);
    const preview = texts(result).find((text) => text.startsWith('Preview'))!;
    expect(preview).toMatch(/^Preview \(its start and its end\):\nline 0\nline 1\n/);
    expect(preview).toMatch(/\nline 299$/);
    const shown = preview.split('\n').filter((line) => line.startsWith('line '));
    expect(new Set(shown).size).toBe(shown.length);
  });
});

test('a configured inlineLimit overrides the client: 2 000 characters of code are stored even for Claude Desktop', async () => {
  const strict = await startProxy(testConfig([filesystem(root, 'strict-fs')], { pipeline: { inlineLimit: 1000 } }));
  const desktop = await connectAs(strict.gateway, { name: 'claude-ai', version: '1.0.0' });
  try {
    const path = join(root, 'strict.ts');
    const code = Array.from({ length: 100 }, (_, i) => `const v${i} = ${i};`).join('\n');
    await writeFile(path, code);
    const result = await call(desktop, 'read_text_file', { path });
    expect(await readFile(artifactMeta(result)[0]!.path, 'utf8')).toBe(code);
  } finally {
    await desktop.close();
    await strict.close();
  }
});
