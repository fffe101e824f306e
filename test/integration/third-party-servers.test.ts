// The proxy in front of real servers from npm (server-filesystem, server-memory), in its default mode.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeAllDirect, connectDirect, NODE } from '../helpers/fixtures.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { artifactMeta, call, links, sha256, summaries } from '../helpers/pipeline.js';
import { filesystem, filesystemRoot, FILESYSTEM_ENTRY, memory, MEMORY_ENTRY } from '../helpers/third-party.js';
import { DEFAULTS } from '../../src/config/types.js';

const root = filesystemRoot();
const memoryFile = join(tmpdir(), `mcp-offload-memory-${process.pid}.jsonl`);
let files: ProxyUnderTest;
let graph: ProxyUnderTest;

beforeAll(async () => {
  [files, graph] = await Promise.all([startProxy(testConfig([filesystem(root)])), startProxy(testConfig([memory(memoryFile)]))]);
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
    const entities = Array.from({ length: 300 }, (_, i) => ({ name: `e${i}`, entityType: 'thing', observations: [`fact ${i}`] }));
    await call(graph.client, 'create_entities', { entities });
    const result = await call(graph.client, 'read_graph');
    const meta = artifactMeta(result);
    expect(meta).toHaveLength(1);
    expect(result.structuredContent).toMatchObject({ $artifact: meta[0]!.uri, mimeType: 'application/json' });
    const stored = await readFile(meta[0]!.path, 'utf8');
    expect((JSON.parse(stored) as { entities: unknown[] }).entities).toHaveLength(300);
  });
});
