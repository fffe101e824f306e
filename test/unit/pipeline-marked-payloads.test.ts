// Payloads kept as bytes by the stdio reader are decoded while they are written to the store: the
// layers must still store what is base64, leave alone what is not (saying so where they did before),
// and store nothing in a dry run.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { silentLogger } from '../../src/logger.js';
import { factsFor } from '../../src/pipeline/facts/index.js';
import { ARTIFACTS_META_KEY, ResultPipeline } from '../../src/pipeline/pipeline.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import type { Blobs } from '../../src/wire/blobs.js';
import { BLOB_LITERAL_BYTES } from '../../src/wire/blob-table.js';
import { blobsLeftOver, readLines } from '../helpers/blob-reader.js';
import { padTo, pdf, png } from './detect-fixtures.js';

let dir: string;
let store: ArtifactStore;
/** Images are stored here whatever their size (by default a vision model's may stay inline). */
const pipelineWith = (pipeline: Record<string, unknown> = {}) =>
  new ResultPipeline(
    new RuleBook({ pipeline: { keepInline: { imageMaxBytes: 0 }, ...pipeline }, rules: [], servers: [] }),
    store,
    silentLogger,
  );

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'marked-payloads-'));
  store = new ArtifactStore({ dir, maxArtifactBytes: 50_000_000, quotaBytes: 0, ttlMs: 0 }, silentLogger);
  await store.init();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  expect(blobsLeftOver()).toBe(0);
});

/** A result as the proxy's stdio reader hands it over, its long literals kept as bytes. */
function readResult(result: CallToolResult): { input: CallToolResult; blobs: Blobs } {
  const line = `${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n`;
  const [{ message, blobs }] = readLines<{ result: CallToolResult }>(line, { max: 1 << 30 }).received;
  return { input: message.result, blobs };
}

/** The result through the pipeline and out of the proxy, as the gateway delivers it. */
async function processed(pipeline: ResultPipeline, result: CallToolResult): Promise<CallToolResult> {
  const { input, blobs } = readResult(result);
  return blobs.deliver(await pipeline.process(input, { server: 's', tool: 't', owner: 'o' }, blobs));
}

const artifactsOf = (result: CallToolResult) =>
  (result._meta?.[ARTIFACTS_META_KEY] as { uri: string }[] | undefined) ?? [];
const storedFiles = async () => (await readdir(dir, { recursive: true })).filter((f) => !['.meta', '.tmp'].includes(f));
const texts = (result: CallToolResult) => result.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));

const bigPng = padTo(png(640, 480), 3 * BLOB_LITERAL_BYTES);
const bigPdf = padTo(pdf(4), 3 * BLOB_LITERAL_BYTES);
/** Base64 in form and length, with a character no base64 has a megabyte in. */
const broken = `${bigPng.toString('base64').slice(0, 1_000_000)}!${bigPng.toString('base64').slice(1_000_001)}`;

test('an image block kept as bytes is stored with the facts and type its bytes give', async () => {
  const { input, blobs } = readResult({
    content: [{ type: 'image', mimeType: 'image/png', data: bigPng.toString('base64') }],
  });
  expect(blobs.isMarker((input.content[0] as { data: string }).data)).toBe(true);
  const output = blobs.deliver(await pipelineWith().process(input, { server: 's', tool: 't', owner: 'o' }, blobs));
  const [artifact] = artifactsOf(output);
  const record = store.get(artifact.uri)!;
  expect(record).toMatchObject({
    mimeType: 'image/png',
    size: bigPng.length,
    facts: await factsFor(bigPng, 'image/png'),
  });
  expect(record.facts).toEqual({ width: 640, height: 480 });
  expect((await store.read(artifact.uri)).equals(bigPng)).toBe(true);
  expect(await readdir(join(dir, '.tmp'))).toEqual([]);
});

test('a PDF in JSON text kept as bytes gets its page count', async () => {
  const output = await processed(pipelineWith(), {
    content: [{ type: 'text', text: JSON.stringify({ name: 'r', content: bigPdf.toString('base64') }) }],
  });
  expect(store.get(artifactsOf(output)[0].uri)!.facts).toEqual({ pages: 4 });
});

test('an image block that is not base64 after all is left as it was, nothing stored', async () => {
  const original: CallToolResult = { content: [{ type: 'image', mimeType: 'image/png', data: broken }] };
  const output = await processed(pipelineWith(), original);
  expect(output.content).toEqual(original.content);
  expect(await storedFiles()).toEqual([]);
  expect(await readdir(join(dir, '.tmp'))).toEqual([]);
});

test('BinaryData in JSON that is not base64 after all gets the note it always got', async () => {
  const doc = { report: { content: broken, mimeType: 'application/pdf' } };
  const output = await processed(pipelineWith({ inlineLimit: 10_000_000, dumpLimit: 10_000_000, resultLimit: 0 }), {
    content: [{ type: 'text', text: JSON.stringify(doc) }],
  });
  expect(texts(output)).toEqual([
    JSON.stringify(doc),
    '[mcp-offload: the application/pdf data at content[0].report is not valid base64; it was left as it is]',
  ]);
  expect(await storedFiles()).toEqual([]);
});

test('a dry run stores nothing, valid or not', async () => {
  for (const data of [bigPng.toString('base64'), broken]) {
    const original: CallToolResult = { content: [{ type: 'image', mimeType: 'image/png', data }] };
    const output = await processed(pipelineWith({ dryRun: true }), original);
    expect(output.content).toEqual(original.content);
  }
  expect(await storedFiles()).toEqual([]);
});
