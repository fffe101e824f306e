// The proxy in front of real servers from npm (server-filesystem, server-memory), in its default mode.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { artifactMeta, call, links, sha256, summaries } from '../helpers/pipeline.js';
import { filesystem, filesystemRoot } from '../helpers/third-party.js';

const root = filesystemRoot();
let proxy: ProxyUnderTest;

beforeAll(async () => {
  proxy = await startProxy(testConfig([filesystem(root)]));
});
afterAll(async () => {
  await proxy?.close();
  await rm(root, { recursive: true, force: true });
});

describe('server-filesystem', () => {
  test('a file too big for the context, sent in content and structuredContent, is stored once and referenced from both', async () => {
    const text = Array.from({ length: 8000 }, (_, i) => `line ${i}: ${'lorem ipsum '.repeat(3)}`).join('\n');
    await writeFile(join(root, 'big.log'), text);
    // The SDK client validates structuredContent against the advertised output schema: this passes only if it fits.
    const result = await call(proxy.client, 'read_text_file', { path: join(root, 'big.log') });
    const meta = artifactMeta(result);
    expect(meta).toHaveLength(1);
    expect(meta[0]!.sources).toEqual(['structuredContent.content', 'content[0]']);
    expect(sha256(await readFile(meta[0]!.path))).toBe(sha256(text));
    expect(result.structuredContent).toEqual({ content: meta[0]!.uri });
    expect(summaries(result)).toHaveLength(1);
    expect(links(result).map((l) => l.uri)).toEqual([meta[0]!.uri]);
  });
});
