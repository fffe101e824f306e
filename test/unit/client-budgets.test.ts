import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, TextContent } from '@modelcontextprotocol/server';
import { ArtifactStore } from '../../src/artifacts/store.js';
import { silentLogger } from '../../src/logger.js';
import { budgetFor, DEFAULT_BUDGET, KNOWN_CLIENTS } from '../../src/pipeline/client-budgets.js';
import { ARTIFACTS_META_KEY, ResultPipeline } from '../../src/pipeline/pipeline.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import { base64DecodedSize } from '../../src/pipeline/payload-data.js';
import { BlobView } from '../../src/wire/blob-view.js';
import { DEFAULT_PIPELINE, dumpChars, forClient, inlineChars } from '../../src/pipeline/settings.js';
import { isForReading } from '../../src/pipeline/text-kind.js';

const named = (name: string) => ({ name, version: '1.0.0' });

describe('the budget of a client, by the name it gives in initialize', () => {
  test.each([
    ['claude-code', { textChars: 50_000, maxLines: 0, resultBytes: 100_000 }],
    ['claude-ai', { textChars: 100_000, maxLines: 0, resultBytes: 1_048_576 }],
    ['codex-mcp-client', { textChars: 10_240, maxLines: 256, resultBytes: 0 }],
    ['Codex', { textChars: 10_240, maxLines: 256, resultBytes: 0 }],
    ['cursor-vscode', DEFAULT_BUDGET],
    ['claude-code-helper', DEFAULT_BUDGET],
  ])('%s', (name, budget) => {
    expect(budgetFor(named(name))).toEqual(budget);
  });

  test('a client that gives no name gets the default budget', () => {
    expect(budgetFor(undefined)).toEqual(DEFAULT_BUDGET);
  });

  test('every figure in the table says where it comes from', () => {
    for (const client of KNOWN_CLIENTS) expect(client.source.length).toBeGreaterThan(40);
  });
});

describe('the settings of one call', () => {
  test('limits left to the client take its budget', () => {
    const codex = forClient(DEFAULT_PIPELINE, named('codex'));
    expect([codex.inlineLimit, codex.lineLimit, codex.resultLimit]).toEqual([10_240, 256, 0]);
    expect(dumpChars(codex)).toBe(10_000);
  });

  test('a configured limit stays as configured, whatever the client', () => {
    const settings = forClient({ ...DEFAULT_PIPELINE, inlineLimit: 1000, resultLimit: 5000 }, named('claude-ai'));
    expect([settings.inlineLimit, settings.lineLimit, settings.resultLimit]).toEqual([1000, 0, 5000]);
    expect(dumpChars(settings)).toBe(1000);
  });

  test('inlineTokens caps the characters at four per token', () => {
    expect(inlineChars(forClient({ ...DEFAULT_PIPELINE, inlineTokens: 2000 }, named('claude-ai')))).toBe(8000);
  });
});

describe('text to read and dumps', () => {
  const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(40).replace(/\. /g, '.\n');
  const code = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n'.repeat(50);
  const base64 = Buffer.alloc(6000, 7).toString('base64');
  const wrappedBase64 = base64.replace(/.{76}/g, '$&\n');
  const minified = Array.from({ length: 300 }, (_, i) => `function f${i}(a){return a*${i}+1}`).join(';');
  const oneLineJson = JSON.stringify(
    Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a b'] })),
  );

  test.each([
    ['prose', prose, true],
    ['source code', code, true],
    ['pretty JSON', JSON.stringify(JSON.parse(oneLineJson), null, 2), true],
    ['base64', base64, false],
    ['base64 wrapped at 76 columns', wrappedBase64, false],
    ['minified code', minified, false],
    ['JSON on one line', oneLineJson, false],
  ])('%s', (_kind, text, forReading) => {
    expect(isForReading(text)).toBe(forReading);
  });
});

describe("a result over the client's whole-result limit", () => {
  let dir: string;
  let pipeline: ResultPipeline;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'client-budgets-'));
    const store = new ArtifactStore({ dir, maxArtifactBytes: 50_000_000, quotaBytes: 0, ttlMs: 0 }, silentLogger);
    await store.init();
    pipeline = new ResultPipeline(new RuleBook({ pipeline: {}, rules: [], servers: [] }), store, silentLogger);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Lines of code, `chars` characters in all. */
  const code = (chars: number, name: string) =>
    `export const ${name} = [\n${'  "an ordinary line of source code",\n'.repeat(chars / 38)}];\n`.slice(0, chars);
  const result: CallToolResult = {
    content: [
      { type: 'text', text: code(45_000, 'first') },
      { type: 'text', text: code(30_000, 'second') },
      { type: 'text', text: code(40_000, 'third') },
    ],
  };
  const callAs = (name: string) =>
    pipeline.process(result, { server: 's', tool: 't', owner: 'o', client: { name, version: '1.0.0' } });

  test('Claude Code (100 000 bytes): the longest texts are stored until the rest fits, the others stay as they were', async () => {
    const output = await callAs('claude-code');
    expect(Buffer.byteLength(JSON.stringify(output))).toBeLessThanOrEqual(100_000);
    const artifacts = output._meta?.[ARTIFACTS_META_KEY] as { path: string; source: string }[];
    expect(artifacts.map((a) => a.source)).toEqual(['content[0]']);
    expect(await readFile(artifacts[0]!.path, 'utf8')).toBe((result.content[0] as TextContent).text);
    const texts = output.content.map((block) => (block as TextContent).text);
    expect(texts).toContain((result.content[1] as TextContent).text);
    expect(texts).toContain((result.content[2] as TextContent).text);
  });

  test('Claude Desktop (1 MiB) takes the same result whole: it reaches the client as the server sent it', async () => {
    expect(await callAs('claude-ai')).toBe(result);
  });
});

describe('the size of base64 without decoding it', () => {
  test.each([1, 2, 3, 1024 * 1024, 1024 * 1024 + 1])('%i bytes, as a string and as kept bytes', (bytes) => {
    const base64 = Buffer.alloc(bytes, 7).toString('base64');
    expect(base64DecodedSize(base64)).toBe(bytes);
    expect(base64DecodedSize(base64.replace(/=+$/, ''))).toBe(bytes);
    // Kept as bytes by the stdio reader, in pieces that may split the padding.
    const raw = Buffer.from(base64, 'latin1');
    const view = new BlobView([raw.subarray(0, raw.length - 1), raw.subarray(raw.length - 1)], raw.length);
    expect(base64DecodedSize(view)).toBe(bytes);
  });
});
