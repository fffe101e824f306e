// The way back: what the pipeline replaced in place comes back exactly when a text returns in a tool call.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, TextContent } from '@modelcontextprotocol/server';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { silentLogger } from '../../src/logger.js';
import { ResultPipeline } from '../../src/pipeline/pipeline.js';
import { restoreArguments, UnrestorableArgument } from '../../src/pipeline/restore.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import { padTo, png, toUrlSafe } from './detect-fixtures.js';

let dir: string;
let store: ArtifactStore;
let pipeline: ResultPipeline;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restore-'));
  store = new ArtifactStore({ dir, maxArtifactBytes: 50_000_000, quotaBytes: 0, ttlMs: 0 }, silentLogger);
  await store.init();
  pipeline = new ResultPipeline(new RuleBook({ pipeline: {}, rules: [], servers: [] }), store, silentLogger);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const call = { server: 'files', tool: 'read', owner: 'me' };
const base64 = padTo(png(12, 12), 4000).toString('base64');

async function shown(text: string, owner = call.owner): Promise<string> {
  const result: CallToolResult = await pipeline.process({ content: [{ type: 'text', text }] }, { ...call, owner });
  return (result.content[0] as TextContent).text;
}

async function restored(value: unknown, owner = call.owner): Promise<unknown> {
  return (await restoreArguments({ value }, store, owner)).args!.value;
}

test('the same bytes written two ways get two stand-ins, each put back as it was written', async () => {
  const text = `a ![x](data:image/png;base64,${base64}) b ![y](data:image/png;name=y.png;base64,${base64}) c`;
  const view = await shown(text);
  const uris = view.match(/artifact:\/\/\S+?(?=\))/g)!;
  expect(uris).toHaveLength(2);
  expect(uris[1]).toBe(`${uris[0]}#2`);
  expect(await restored(view)).toBe(text);
});

test('a URL-safe, unpadded payload, and a URI followed by a full stop', async () => {
  const urlSafe = toUrlSafe(base64).replace(/=+$/, '');
  const text = `see data:image/png;base64,${urlSafe}.`;
  const view = await shown(text);
  expect(view).toMatch(/^see artifact:\/\/files\/read_[0-9a-f]{12}\.png(#\d+)?\.$/);
  expect(await restored(view)).toBe(text);
});

test('a reference reformatted by the model (spaces, line breaks, keys moved) is put back as the literal it replaced', async () => {
  const text = `{"a": 1, "img": "${base64.replace(/\//g, '\\/')}", "b": [true]}`;
  const view = await shown(text);
  const reference = JSON.parse(view).img as Record<string, unknown>;
  expect(reference.$artifact).toMatch(/^artifact:\/\//);
  const reformatted = `{\n  "a": 2,\n  "img": {\n    "size": ${String(reference.size)},\n    "$artifact": "${String(reference.$artifact)}"\n  },\n  "b": [true]\n}`;
  expect(await restored(reformatted)).toBe(
    `{\n  "a": 2,\n  "img": "${base64.replace(/\//g, '\\/')}",\n  "b": [true]\n}`,
  );
});

test('base64 with stray bits in its last character, which decoders ignore, is put back as it was written', async () => {
  // 4000 bytes end in one byte: the last data character before `==` carries 4 bits no byte holds.
  // (One of A Q g w, whose low 4 bits are 0: the next letter sets one of them.)
  const stray = base64.replace(/(.)==$/, (_, c: string) => `${String.fromCharCode(c.charCodeAt(0) + 1)}==`);
  expect(Buffer.from(stray, 'base64')).toEqual(Buffer.from(base64, 'base64'));
  for (const text of [`{"img": "${stray}"}`, `see data:image/png;base64,${stray} there`]) {
    const view = await shown(text);
    expect(view).not.toContain(stray);
    expect(await restored(view)).toBe(text);
  }
});

test('a reference passed as an object becomes the value it replaced', async () => {
  const view = await shown(`{"img": "${base64}"}`);
  const reference = JSON.parse(view).img as Record<string, unknown>;
  expect(await restored({ nested: [reference] })).toEqual({ nested: [base64] });
});

test("another session's stand-in is not put back: the call is refused, as for one that expired", async () => {
  const view = await shown(`![z](data:image/png;base64,${padTo(png(3, 3), 2500).toString('base64')})`, 'someone-else');
  await expect(restored(view)).rejects.toThrow(UnrestorableArgument);
  await expect(restored(view)).rejects.toThrow(/does not hold for this client/);
});

test('artifact:// URIs not of the form the proxy hands out are text: left as they are, never refused', async () => {
  const args = {
    prose: 'see artifact://nothing/x.png, or artifact://files/read_not-a-hash.png.',
    whole: 'artifact://nothing/x.png',
    bare: 'artifact://nothing',
    reference: { $artifact: 'artifact://nothing/x.png', size: 3 },
    json: '{"img": {"$artifact": "artifact://nothing/x.png", "size": 3}}',
  };
  const result = await restoreArguments(args, store, call.owner);
  expect(result).toEqual({ args, restored: 0 });
  expect(result.args).toBe(args);
});

test("a URI of the proxy's form that the owner has no artifact for is refused, whole or inside a text", async () => {
  const stale = 'artifact://files/read_0123456789ab.png';
  await expect(restored(stale)).rejects.toThrow(/does not hold for this client/);
  await expect(restored(`![a](${stale}#2) and more`)).rejects.toThrow(/does not hold for this client/);
  await expect(restored({ $artifact: stale, size: 1 })).rejects.toThrow(UnrestorableArgument);
});

test('arguments without stand-ins are the very same object', async () => {
  const args = { path: '/tmp/x', content: 'plain text' };
  expect((await restoreArguments(args, store, call.owner)).args).toBe(args);
});

test('a stand-in with a fragment names the same artifact for reading', async () => {
  const view = await shown(`![q](data:image/png;base64,${base64}) ![r](data:image/png;x=1;base64,${base64})`);
  const second = /\(artifact:\/\/[^)]+#\d+\)/.exec(view)![0].slice(1, -1);
  expect(store.get(second)?.uri).toBe(second.slice(0, second.indexOf('#')));
});
