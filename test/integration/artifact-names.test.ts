// Honest names; no server paths over HTTP (issue #33, item 6). Bytes are stored once, but an artifact's URI and name
// say which server and tool produced them in this call; a client over HTTP gets download links, never the gateway's
// file paths, while a client on stdio (the same machine) keeps them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { silentLogger } from '../../src/logger.js';
import { ARTIFACTS_META_KEY } from '../../src/pipeline/pipeline.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { startProxy, testConfig, type ProxyUnderTest } from '../helpers/proxy.js';
import { TOKENS, connectHttp, startSidecar, type HttpClient, type Sidecar } from '../helpers/sidecar.js';

interface MetaArtifact {
  uri: string;
  path?: string;
  downloadUrl?: string;
  sha256: string;
}
const metaOf = (result: unknown) => ((result as CallToolResult)._meta?.[ARTIFACTS_META_KEY] ?? []) as MetaArtifact[];
const textOf = (result: unknown) =>
  (result as CallToolResult).content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');

describe('on stdio: names per call, paths kept', () => {
  let proxy: ProxyUnderTest;
  let dir: string;
  beforeAll(async () => {
    const config = testConfig([
      { name: 'one', command: NODE, args: [FIXTURES.artifact, '--name', 'one'] },
      { name: 'two', command: NODE, args: [FIXTURES.artifact, '--name', 'two'] },
    ]);
    dir = config.artifacts.dir!;
    proxy = await startProxy(config);
  });
  afterAll(() => proxy?.close());

  test('the same bytes from two servers are stored once, under the name of the server and tool of each call', async () => {
    const [first] = metaOf(await proxy.client.callTool({ name: 'one__image', arguments: { tag: 'same' } }));
    const second = await proxy.client.callTool({ name: 'two__image', arguments: { tag: 'same' } });
    const [again] = metaOf(second);
    expect(first!.uri).toMatch(/^artifact:\/\/one\/image_[0-9a-f]{12}\.png$/);
    expect(again!.uri).toBe(first!.uri.replace('artifact://one/', 'artifact://two/'));
    expect(textOf(second)).toContain(`Resource: ${again!.uri}`);
    // Stored once: one file, whose path both name (stdio clients are on the gateway's machine).
    expect(again!.sha256).toBe(first!.sha256);
    expect(again!.path).toBe(first!.path);
    expect(again!.path!.startsWith(dir)).toBe(true);
    expect(readdirSync(dir)).not.toContain('two');

    // Read by its name for this call: the same bytes, the resource named as asked.
    const read = await proxy.client.readResource({ uri: again!.uri });
    expect(read.contents[0]!.uri).toBe(again!.uri);
    const original = await proxy.client.readResource({ uri: first!.uri });
    expect((read.contents[0] as { blob: string }).blob).toBe((original.contents[0] as { blob: string }).blob);
    const listed = await proxy.client.listResources();
    const resource = listed.resources.find((r) => r.uri === first!.uri)!;
    expect(resource._meta?.path).toBe(first!.path);

    // The name is kept with the record: a store opened afresh on the directory knows it.
    const store = new ArtifactStore({ dir, maxArtifactBytes: 1 << 30, quotaBytes: 0, ttlMs: 0 }, silentLogger);
    await store.init();
    try {
      const record = store.get(again!.uri)!;
      expect({ uri: record.uri, server: record.server, tool: record.tool }).toEqual({
        uri: again!.uri,
        server: 'two',
        tool: 'image',
      });
      expect(store.get(first!.uri)!.server).toBe('one');
      expect(store.list()).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  test('resources/list and artifact_list show the one file under each name it was handed out by', async () => {
    const [one] = metaOf(await proxy.client.callTool({ name: 'one__image', arguments: { tag: 'listed' } }));
    const [two] = metaOf(await proxy.client.callTool({ name: 'two__image', arguments: { tag: 'listed' } }));
    expect(two!.sha256).toBe(one!.sha256);
    expect(two!.uri).not.toBe(one!.uri);

    const { resources } = await proxy.client.listResources();
    const named = resources.filter((r) => r._meta?.sha256 === one!.sha256);
    expect(named.map((r) => r.uri).sort()).toEqual([one!.uri, two!.uri].sort());
    expect(named.find((r) => r.uri === two!.uri)!.title).toBe('image output (two)');
    expect(named.find((r) => r.uri === one!.uri)!.title).toBe('image output (one)');

    const listed = textOf(await proxy.client.callTool({ name: 'artifact_list', arguments: {} }));
    expect(listed).toContain(`${one!.uri}  image/png`);
    expect(listed).toContain(`${two!.uri}  image/png`);
    expect(listed.split(two!.uri)).toHaveLength(2);
    // A filter picks names: the server that handed out this one.
    const fromTwo = textOf(await proxy.client.callTool({ name: 'artifact_list', arguments: { server: 'two' } }));
    expect(fromTwo).toContain(two!.uri);
    expect(fromTwo).not.toContain(one!.uri);
  });
});

describe('over HTTP: download links, no gateway paths', () => {
  let sidecar: Sidecar;
  let alice: HttpClient;
  beforeAll(async () => {
    sidecar = await startSidecar();
    alice = await connectHttp(sidecar.base, TOKENS[0]!.token);
  });
  afterAll(async () => {
    await alice?.close();
    await sidecar?.close();
  });

  test('_meta, the summary, resources and artifact_read give a download link and never the file path', async () => {
    const dir = sidecar.config.artifacts.dir!;
    const result = await alice.client.callTool({ name: 'image', arguments: { tag: 'remote' } });
    const [meta] = metaOf(result);
    expect(meta!.path).toBeUndefined();
    expect(meta!.downloadUrl).toMatch(new RegExp(`^${sidecar.base}/artifacts/art/image_`));
    expect((await fetch(meta!.downloadUrl!)).status).toBe(200);
    expect(JSON.stringify(result)).not.toContain(dir);

    const listed = await alice.client.listResources();
    const resource = listed.resources.find((r) => r.uri === meta!.uri)!;
    expect(resource).toBeDefined();
    expect(resource._meta?.path).toBeUndefined();
    expect(JSON.stringify(listed)).not.toContain(dir);

    const read = await alice.client.callTool({ name: 'artifact_read', arguments: { uri: meta!.uri } });
    expect(textOf(read)).toContain(`download: ${sidecar.base}/artifacts/art/image_`);
    expect(JSON.stringify(read)).not.toContain(dir);
    expect(readFileSync(join(dir, meta!.uri.slice('artifact://'.length))).length).toBeGreaterThan(0);
  });
});
