import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { surelyUntouched } from '../../src/pipeline/untouched.js';
import { chainFor } from '../../src/pipeline/chain.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import { forClient, type PipelinePatch, type PipelineSettings } from '../../src/pipeline/settings.js';
import { Blobs } from '../../src/wire/blobs.js';
import { gif, gzip, jpeg, mp3, padTo, pdf, png, wav } from './detect-fixtures.js';

/**
 * The predicate lets a result skip the pipeline. Its oracle is the pipeline's own decision: a result no layer
 * of its chain applies to is returned as the very same object without any work (pipeline.ts). The predicate
 * may say "maybe touched" for a result no layer applies to, never "untouched" for one a layer applies to.
 */
function layersApply(result: CallToolResult, settings: PipelineSettings): boolean {
  return chainFor(result, settings).some((layer) => layer.applies(result, settings, Blobs.NONE));
}

function settingsOf(patch: PipelinePatch, client?: { name: string; version: string }): PipelineSettings {
  return forClient(new RuleBook({ pipeline: patch, rules: [], servers: [] }).settingsFor('s', 't'), client);
}

const binaries = [png(20, 20), jpeg(30, 20), gif(5, 5), pdf(2), gzip(), mp3(), wav()].map((b) =>
  padTo(b).toString('base64'),
);
const shortText = fc.string({ maxLength: 40 });
const text = fc.oneof(
  shortText,
  fc.string({ maxLength: 400 }),
  fc.string({ maxLength: 40 }).map((s) => `${s}\n`.repeat(30)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(...binaries),
  fc.constantFrom(...binaries).map((b) => JSON.stringify({ name: 'x', content: b })),
  fc.constantFrom(...binaries).map((b) => `![chart](data:image/png;base64,${b})`),
  fc.constant('{"downloadUrl":"https://example.com/f","mimeType":"application/pdf"}'),
  fc.integer({ min: 1, max: 300 }).map((n) => '\u0001'.repeat(n)),
  fc.integer({ min: 1, max: 300 }).map((n) => 'é'.repeat(n)),
);
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('text' as const), text: shortText }),
  fc.record({
    type: fc.constant('image' as const),
    data: fc.constantFrom(binaries[0]!, 'AAAA'),
    mimeType: fc.constant('image/png'),
  }),
  fc.record({
    type: fc.constant('audio' as const),
    data: fc.constantFrom(binaries[5]!, 'AAAA'),
    mimeType: fc.constant('audio/mpeg'),
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
        blob: fc.constantFrom(binaries[3]!),
      }),
      fc.record({ uri: fc.constant('x://text'), text }),
    ),
  }),
);
const result: fc.Arbitrary<CallToolResult> = fc.record(
  {
    content: fc.array(block, { maxLength: 5 }),
    structuredContent: fc.dictionary(
      fc.string({ maxLength: 8 }),
      fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...binaries)),
      {
        maxKeys: 4,
      },
    ),
    isError: fc.boolean(),
    resultType: fc.constantFrom('complete', 'other'),
    _meta: fc.oneof(
      fc.constant({ note: 'x' }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      fc.string({ maxLength: 3000 }).map((pad) => ({ pad })),
      fc.constant('not an object' as unknown as Record<string, never>),
    ),
  },
  { requiredKeys: ['content'] },
);
const patch: fc.Arbitrary<PipelinePatch> = fc.record(
  {
    mode: fc.constantFrom('auto' as const, 'file' as const, 'passthrough' as const),
    minBinaryLength: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 100, max: 2000 })),
    dumpLimit: fc.integer({ min: 0, max: 20_000 }),
    inlineLimit: fc.oneof(fc.constant('client' as const), fc.integer({ min: 0, max: 20_000 })),
    lineLimit: fc.oneof(fc.constant('client' as const), fc.constant(0), fc.integer({ min: 1, max: 50 })),
    resultLimit: fc.oneof(fc.constant('client' as const), fc.integer({ min: 0, max: 3000 })),
    inlineTokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 })),
    errorLimit: fc.integer({ min: 0, max: 500 }),
    keepInline: fc.record({
      imageMaxBytes: fc.integer({ min: 0, max: 1 << 20 }),
      audioMaxBytes: fc.integer({ min: 0, max: 1 << 20 }),
    }),
    fields: fc.constantFrom([], [{ path: 'content' }]),
  },
  { requiredKeys: [] },
);
const client = fc.option(
  fc.constantFrom('claude-code', 'claude-ai', 'codex', 'cursor', 'unknown').map((name) => ({ name, version: '1' })),
  {
    nil: undefined,
  },
);

test('never says "untouched" for a result a layer of the pipeline applies to', () => {
  let untouched = 0;
  fc.assert(
    fc.property(result, patch, client, (input, p, c) => {
      const settings = settingsOf(p, c);
      if (!surelyUntouched(input, settings, 0)) return;
      untouched++;
      expect(layersApply(input, settings)).toBe(false);
    }),
    { numRuns: 3000 },
  );
  // The property is only as good as the cases where the predicate says "untouched".
  expect(untouched).toBeGreaterThan(300);
});

test('never says "untouched" for a text-only result a layer applies to, at the edges of every limit', () => {
  const texts = fc.record(
    {
      content: fc.array(fc.record({ type: fc.constant('text' as const), text }), { minLength: 1, maxLength: 4 }),
      isError: fc.boolean(),
    },
    { requiredKeys: ['content'] },
  );
  let untouched = 0;
  fc.assert(
    fc.property(texts, patch, client, (input, p, c) => {
      const settings = settingsOf({ ...p, mode: 'auto', fields: [] }, c);
      if (!surelyUntouched(input, settings, 0)) return;
      untouched++;
      expect(layersApply(input, settings)).toBe(false);
    }),
    { numRuns: 5000 },
  );
  expect(untouched).toBeGreaterThan(500);
});

test('says "untouched" for the small text results that make up ordinary traffic', () => {
  const settings = settingsOf({});
  for (const input of [
    { content: [{ type: 'text', text: 'Echo: hello 1' }] },
    {
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b\nc' },
      ],
      isError: false,
    },
    { content: [{ type: 'text', text: 'Tool failed: no such file' }], isError: true },
    { content: [] },
    {
      content: [{ type: 'text', text: 'echo: hello 1' }],
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-fixture', version: '1.0.0' }, traceparent: 't' },
    },
  ] as CallToolResult[]) {
    expect(surelyUntouched(input, settings, 0)).toBe(true);
    expect(layersApply(input, settings)).toBe(false);
  }
  expect(
    surelyUntouched(
      { content: [{ type: 'image', data: binaries[0]!, mimeType: 'image/png' }] },
      settingsOf({ mode: 'passthrough' }),
      0,
    ),
  ).toBe(true);
});

test('says "maybe touched" for every shape the pipeline rewrites, and for payloads kept as bytes', () => {
  const settings = settingsOf({ keepInline: { imageMaxBytes: 0, audioMaxBytes: 0 } });
  const touched = [
    { content: [{ type: 'image', data: binaries[0]!, mimeType: 'image/png' }] },
    { content: [{ type: 'audio', data: binaries[5]!, mimeType: 'audio/mpeg' }] },
    { content: [{ type: 'resource', resource: { uri: 'x://b', blob: binaries[3]!, mimeType: 'application/pdf' } }] },
    { content: [{ type: 'text', text: binaries[3]! }] },
    { content: [{ type: 'text', text: JSON.stringify({ name: 'r', content: binaries[0] }) }] },
    { content: [{ type: 'text', text: `![x](data:image/png;base64,${binaries[0]})` }] },
    { content: [{ type: 'text', text: '{"downloadUrl":"https://example.com/f.pdf","mimeType":"application/pdf"}' }] },
    { content: [{ type: 'text', text: 'x'.repeat(200_000) }] },
    { content: [{ type: 'text', text: 'Error: '.repeat(10_000) }], isError: true },
    { content: [], structuredContent: { data: binaries[0] } },
  ] as CallToolResult[];
  for (const input of touched) {
    expect(layersApply(input, settings)).toBe(true);
    expect(surelyUntouched(input, settings, 0)).toBe(false);
  }
  // A `_meta` no layer reads still counts towards the result limit.
  const padded = { content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: { pad: 'x'.repeat(2000) } };
  const limited = settingsOf({ resultLimit: 1000 });
  expect(layersApply(padded as CallToolResult, limited)).toBe(true);
  expect(surelyUntouched(padded as CallToolResult, limited, 0)).toBe(false);
  expect(surelyUntouched({ ...padded, _meta: { pad: 'x' } } as CallToolResult, limited, 0)).toBe(true);
  const small = { content: [{ type: 'text', text: 'hi' }] } as CallToolResult;
  expect(surelyUntouched(small, settings, 1)).toBe(false);
  expect(surelyUntouched(small, settingsOf({ fields: [{ path: 'x' }] }), 0)).toBe(false);
  expect(surelyUntouched(small, settingsOf({ mode: 'file' }), 0)).toBe(false);
  expect(surelyUntouched(small, { ...settings, transform: '/t.mjs' }, 0)).toBe(false);
});
