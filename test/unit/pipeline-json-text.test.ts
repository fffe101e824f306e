// A payload inside JSON carried by a text block, long enough to be left in the text rather than
// copied out of it (json-text.ts): the rest of the JSON must come back exactly as written.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, TextContent } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { silentLogger } from '../../src/logger.js';
import { LONG_LITERAL_CHARS } from '../../src/pipeline/json-text.js';
import { BLOB_LITERAL_BYTES } from '../../src/wire/blob-table.js';
import type { Blobs } from '../../src/wire/blobs.js';
import { blobsLeftOver, readLines } from '../helpers/blob-reader.js';
import { ARTIFACTS_META_KEY, ResultPipeline } from '../../src/pipeline/pipeline.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import { padTo, pdf, png } from './detect-fixtures.js';

let dir: string;
let store: ArtifactStore;
let pipeline: ResultPipeline;
/** One whose size net lets the long prose through, so only the payloads are stored. */
let roomy: ResultPipeline;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipeline-json-text-'));
  store = new ArtifactStore({ dir, maxArtifactBytes: 50_000_000, quotaBytes: 0, ttlMs: 0 }, silentLogger);
  await store.init();
  pipeline = new ResultPipeline(new RuleBook({ pipeline: {}, rules: [], servers: [] }), store, silentLogger);
  roomy = new ResultPipeline(
    new RuleBook({ pipeline: { inlineLimit: 1_000_000, dumpLimit: 1_000_000 }, rules: [], servers: [] }),
    store,
    silentLogger,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const call = { server: 'json-text', tool: 'report', owner: 's1' };
/** Long enough to be left in the text: 3 bytes make 4 characters. */
const pdfBytes = padTo(pdf(3), (LONG_LITERAL_CHARS / 4) * 3 + 3000);
const pdfBase64 = pdfBytes.toString('base64');
const pngBase64 = padTo(png(8, 8), (LONG_LITERAL_CHARS / 4) * 3 + 300).toString('base64');
const longProse = 'Lorem ipsum dolor sit amet. '.repeat(Math.ceil(LONG_LITERAL_CHARS / 28) + 10);

function textOf(result: CallToolResult, index = 0): string {
  return (result.content[index] as TextContent).text;
}

function artifactsOf(result: CallToolResult): { uri: string; mimeType: string; size: number }[] {
  return (result._meta?.[ARTIFACTS_META_KEY] as { uri: string; mimeType: string; size: number }[] | undefined) ?? [];
}

test('only the payload literal changes: formatting, key order, escapes and number spelling stay as written', async () => {
  const head =
    '{ "name" : "Sales \\u00e9 \\"Q3\\"",\n  "z": 1.50e3, "a": [1, 2.0, -0],\n  "notes": "' +
    longProse +
    '",\n  "content":"';
  const tail = '" ,"\\ud83d\\ude00": true }\n';
  const text = head + pdfBase64 + tail;
  const output = await roomy.process({ content: [{ type: 'text', text }] }, call);

  const [artifact] = artifactsOf(output);
  expect(artifact).toMatchObject({ mimeType: 'application/pdf', size: pdfBytes.length });
  expect((await store.read(artifact.uri)).equals(pdfBytes)).toBe(true);
  const rewritten = textOf(output);
  expect(rewritten.startsWith(head.slice(0, -1))).toBe(true);
  expect(rewritten.endsWith(tail.slice(1))).toBe(true);
  const reference = rewritten.slice(head.length - 1, rewritten.length - tail.length + 1);
  expect(JSON.parse(reference)).toMatchObject({
    $artifact: artifact.uri,
    mimeType: 'application/pdf',
    size: pdfBytes.length,
  });
  expect(JSON.parse(rewritten)).toEqual({ ...JSON.parse(text), content: JSON.parse(reference) });
});

test('two payloads and a long string that is no payload: both payloads replaced in place, the prose kept', async () => {
  const doc = { pages: [{ pdf: pdfBase64 }, { image: pngBase64 }], prose: longProse };
  const text = JSON.stringify(doc, null, 2);
  const output = await roomy.process({ content: [{ type: 'text', text }] }, call);
  const artifacts = artifactsOf(output);
  expect(artifacts.map((a) => a.mimeType).sort()).toEqual(['application/pdf', 'image/png']);
  const rewritten = JSON.parse(textOf(output));
  expect(rewritten.prose).toBe(longProse);
  expect(rewritten.pages[0].pdf.$artifact).toBe(artifacts.find((a) => a.mimeType === 'application/pdf')!.uri);
  expect(rewritten.pages[1].image.$artifact).toBe(artifacts.find((a) => a.mimeType === 'image/png')!.uri);
});

test('a raw control character in a long literal makes the text no JSON: the payload is not taken out of it as JSON', async () => {
  const text = `{"content":"${pdfBase64}","log":"${longProse}\n${longProse}"}`;
  const output = await pipeline.process({ content: [{ type: 'text', text }] }, call);
  // Not JSON: the size net stores the whole text as it is, and no reference is spliced into it.
  expect(artifactsOf(output).map((a) => a.mimeType)).toEqual(['text/plain']);
  expect(output.content.some((b) => b.type === 'text' && b.text.includes('$artifact'))).toBe(false);
});

test('a payload with wrapped lines inside a JSON string must be escaped; raw line breaks make it no JSON', async () => {
  const wrapped = pdfBase64.replace(/.{76}/g, '$&\n');
  const output = await pipeline.process({ content: [{ type: 'text', text: `{"content":"${wrapped}"}` }] }, call);
  expect(artifactsOf(output).map((a) => a.mimeType)).not.toContain('application/pdf');
  const escaped = await pipeline.process(
    { content: [{ type: 'text', text: JSON.stringify({ content: wrapped }) }] },
    call,
  );
  expect(artifactsOf(escaped).map((a) => a.mimeType)).toEqual(['application/pdf']);
});

test('property: whatever surrounds the payload comes back byte for byte', async () => {
  const scalar = fc.oneof(fc.string({ maxLength: 20 }), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
  const sibling = fc.dictionary(
    fc.string({ maxLength: 8 }).filter((k) => k !== 'content'),
    scalar,
    { maxKeys: 4 },
  );
  await fc.assert(
    fc.asyncProperty(sibling, sibling, fc.constantFrom(undefined, 1, '\t'), async (before, after, space) => {
      const text = JSON.stringify({ ...before, content: pdfBase64, ...after }, null, space);
      const output = await pipeline.process({ content: [{ type: 'text', text }] }, call);
      const [artifact] = artifactsOf(output);
      expect(artifact?.size).toBe(pdfBytes.length);
      const at = text.indexOf(`"${pdfBase64}"`);
      const rewritten = textOf(output);
      expect(rewritten.slice(0, at)).toBe(text.slice(0, at));
      const rest = text.slice(at + pdfBase64.length + 2);
      expect(rewritten.endsWith(rest)).toBe(true);
      expect(JSON.parse(rewritten.slice(at, rewritten.length - rest.length)).$artifact).toBe(artifact.uri);
    }),
    { numRuns: 25 },
  );
});

describe('JSON text read from a stdio upstream, its long strings kept as bytes (wire/inlay.ts)', () => {
  /** The result as the proxy's reader hands it over: the text block's inner long strings inlaid as markers. */
  function readResult(text: string): { input: CallToolResult; blobs: Blobs } {
    const line = `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } })}\n`;
    const [{ message, blobs }] = readLines<{ result: CallToolResult }>(line, { max: 1 << 30 }).received;
    return { input: message.result, blobs };
  }
  const bigPdf = padTo(pdf(2), BLOB_LITERAL_BYTES);
  const notAFile = Buffer.alloc(BLOB_LITERAL_BYTES, 'plain words, no signature ').toString('base64');

  test('the payload is stored from the bytes; a long string that is no file comes back as it was', async () => {
    const text = JSON.stringify({ name: 'report', content: bigPdf.toString('base64'), other: notAFile }, null, 1);
    const { input, blobs } = readResult(text);
    expect(textOf(input).length).toBeLessThan(1000);
    const output = blobs.deliver(await roomy.process(input, call, blobs));
    const [artifact] = artifactsOf(output);
    expect(artifact).toMatchObject({ mimeType: 'application/pdf', size: bigPdf.length });
    expect(JSON.parse(textOf(output))).toEqual({
      name: 'report',
      content: JSON.parse(textOf(output)).content,
      other: notAFile,
    });
    expect(textOf(output).replace(/"content": \{[^}]*\}/, '"content": ""')).toBe(
      text.replace(/"content": "[^"]*"/, '"content": ""'),
    );
    expect(blobsLeftOver()).toBe(0);
  });

  test('nothing to extract: the text is the one the upstream sent', async () => {
    const text = JSON.stringify({ other: notAFile, list: [notAFile] });
    const { input, blobs } = readResult(text);
    const output = blobs.deliver(await pipeline.process(input, call, blobs));
    // The size net stores it, from the text as sent.
    const [artifact] = artifactsOf(output);
    expect((await store.read(artifact.uri)).toString('utf8')).toBe(text);
    expect(blobsLeftOver()).toBe(0);
  });
});

test('a JSON text still too long once its payloads are out is stored as the upstream wrote it, payloads and all', async () => {
  const text = '{ "notes": "' + longProse + '",\n  "chart": "' + pngBase64 + '" }';
  const output = await pipeline.process({ content: [{ type: 'text', text }] }, call);
  const artifacts = artifactsOf(output);
  expect(artifacts.map((a) => a.mimeType).sort()).toEqual(['application/json', 'image/png']);
  const json = artifacts.find((a) => a.mimeType === 'application/json')!;
  expect((await store.read(json.uri)).toString('utf8')).toBe(text);
});
