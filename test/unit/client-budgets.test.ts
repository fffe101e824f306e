import { budgetFor, DEFAULT_BUDGET, KNOWN_CLIENTS } from '../../src/pipeline/client-budgets.js';
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
