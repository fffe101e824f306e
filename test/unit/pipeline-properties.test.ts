import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallToolResultSchema, type CallToolResult, type ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { silentLogger } from '../../src/logger.js';
import { ResultPipeline } from '../../src/pipeline/pipeline.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import type { PipelinePatch } from '../../src/pipeline/settings.js';
import { gzip, padTo, pdf, png } from './detect-fixtures.js';

let dir: string;
let store: ArtifactStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipeline-props-'));
  store = new ArtifactStore({ dir, maxArtifactBytes: 50_000_000, quotaBytes: 0, ttlMs: 0 }, silentLogger);
  await store.init();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Images are stored here whatever their size (by default a vision model's may stay inline). */
function pipelineWith(pipeline: PipelinePatch = {}): ResultPipeline {
  const settings = { ...pipeline, keepInline: { imageMaxBytes: 0, ...pipeline.keepInline } };
  return new ResultPipeline(new RuleBook({ pipeline: settings, rules: [], servers: [] }), store, silentLogger);
}

const call = { server: 'props', tool: 'anything', owner: 's1' };
const binaries = [png(20, 20), pdf(2), gzip()].map((b) => padTo(b).toString('base64'));

/** Text a model would read: short, never base64 of a file. */
const plainText = fc.string({ maxLength: 300 });
const payloadText = fc.constantFrom(...binaries);
const jsonText = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
const jsonWithPayload = fc
  .tuple(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), payloadText)
  .map(([object, payload]) => JSON.stringify({ ...object, data: payload }));

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: fc.oneof(plainText, jsonText, payloadText, jsonWithPayload) }),
  fc.record({
    type: fc.constant('image' as const),
    data: fc.constantFrom(binaries[0], 'bm90IGFuIGltYWdl'),
    mimeType: fc.constant('image/png'),
  }),
  fc.record({
    type: fc.constant('resource_link' as const),
    uri: fc.webUrl(),
    name: fc.string({ minLength: 1, maxLength: 10 }),
  }),
  fc.record({
    type: fc.constant('resource' as const),
    resource: fc.oneof(
      fc.record({
        uri: fc.constant('x://blob'),
        mimeType: fc.constant('application/pdf'),
        blob: fc.constantFrom(binaries[1]),
      }),
      fc.record({ uri: fc.constant('x://text'), text: plainText }),
    ),
  }),
);

const result: fc.Arbitrary<CallToolResult> = fc.record(
  {
    content: fc.array(block, { maxLength: 5 }),
    structuredContent: fc.dictionary(
      fc.string({ maxLength: 8 }),
      fc.oneof(fc.jsonValue({ maxDepth: 2 }), payloadText),
      { maxKeys: 4 },
    ),
    isError: fc.boolean(),
  },
  { requiredKeys: ['content'] },
);

test('never throws, always answers a valid CallToolResult, and never mutates its input', async () => {
  const pipeline = pipelineWith({ inlineLimit: 2000 });
  await fc.assert(
    fc.asyncProperty(result, async (input) => {
      const before = structuredClone(input);
      const output = await pipeline.process(input, call);
      expect(CallToolResultSchema.safeParse(output).success).toBe(true);
      expect(input).toEqual(before);
    }),
    { numRuns: 150 },
  );
});

test('blocks with nothing to extract reach the client as they were, in order', async () => {
  const pipeline = pipelineWith();
  const untouched = fc.oneof(
    fc.record({ type: fc.constant('text' as const), text: plainText }),
    fc.record({
      type: fc.constant('resource_link' as const),
      uri: fc.webUrl(),
      name: fc.string({ minLength: 1, maxLength: 10 }),
    }),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(untouched, { maxLength: 4 }),
      block,
      fc.array(untouched, { maxLength: 4 }),
      async (head, middle, tail) => {
        const input: CallToolResult = { content: [...head, middle, ...tail] };
        const output = await pipeline.process(input, call);
        expect(output.content.slice(0, head.length)).toEqual(head);
        expect(output.content.slice(output.content.length - tail.length)).toEqual(tail);
      },
    ),
    { numRuns: 150 },
  );
});

test('a result with nothing to extract is the very same object', async () => {
  const pipeline = pipelineWith();
  const plain = fc.record(
    {
      content: fc.array(fc.record({ type: fc.constant('text' as const), text: fc.oneof(plainText, jsonText) }), {
        maxLength: 4,
      }),
      structuredContent: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    },
    { requiredKeys: ['content'] },
  );
  await fc.assert(
    fc.asyncProperty(plain, async (input) => {
      expect(await pipeline.process(input, call)).toBe(input);
    }),
    { numRuns: 200 },
  );
});

test('every extracted payload is announced with a resource_link whose bytes match', async () => {
  const pipeline = pipelineWith();
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(...binaries), { minLength: 1, maxLength: 3 }), async (payloads) => {
      const input: CallToolResult = {
        content: payloads.map((data) => ({ type: 'image' as const, data, mimeType: 'application/octet-stream' })),
      };
      const output = await pipeline.process(input, call);
      const links = output.content.filter((b) => b.type === 'resource_link') as { uri: string; size?: number }[];
      expect(links).toHaveLength(new Set(payloads).size);
      for (const link of links) {
        const record = store.get(link.uri)!;
        const stored = await store.read(record.id);
        expect(payloads.some((p) => Buffer.from(p, 'base64').equals(stored))).toBe(true);
        expect(link.size).toBe(record.size);
      }
      expect(JSON.stringify(output)).not.toContain(payloads[0].slice(0, 200));
    }),
    { numRuns: 40 },
  );
});
