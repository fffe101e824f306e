import { parseConfig } from '../../src/config/load.js';
import { ConfigError, DEFAULTS } from '../../src/config/types.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import { DEFAULT_PIPELINE } from '../../src/pipeline/settings.js';

const FILE = '/etc/mcp-offload/config.yaml';
const yaml = (...lines: string[]) => lines.join('\n');
const parse = (text: string) => parseConfig(text, FILE, {});

function problems(text: string): string[] {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    throw error;
  }
  return [];
}

test('pipeline, rules and artifact options are read and normalized', () => {
  const config = parse(
    yaml(
      'pipeline: {mode: auto, inlineLimit: 5000, keepInline: {imageMaxBytes: 20000}}',
      'artifacts: {dir: /data, quotaBytes: 0, ttlHours: 1.5, tools: {readLimit: 5000}}',
      'rules:',
      '  - server: tableau',
      '    tool: download_*',
      '    fields:',
      '      - {path: content, mimeType: application/pdf, filename: "{name}.pdf"}',
      '  - tool: list_*',
      '    mode: passthrough',
      '  - server: "gh*"',
      '    transform: ./transforms/github.mjs',
      'servers:',
      '  tableau:',
      '    command: node',
      '    pipeline: {mode: file}',
      '  ghe:',
      '    url: https://github.example.com/mcp',
    ),
  );
  expect(config.pipeline).toEqual({ mode: 'auto', inlineLimit: 5000, keepInline: { imageMaxBytes: 20000 } });
  expect(config.artifacts).toEqual({
    ...DEFAULTS.artifacts,
    dir: '/data',
    quotaBytes: 0,
    ttlHours: 1.5,
    tools: { ...DEFAULTS.artifacts.tools, readLimit: 5000 },
  });
  expect(config.rules).toEqual([
    {
      server: 'tableau',
      tool: 'download_*',
      settings: { fields: [{ path: 'content', mimeType: 'application/pdf', filename: '{name}.pdf' }] },
      line: 4,
    },
    { server: '*', tool: 'list_*', settings: { mode: 'passthrough' }, line: 8 },
    { server: 'gh*', settings: { transform: '/etc/mcp-offload/transforms/github.mjs' }, line: 10 },
  ]);
  expect(config.servers[0]?.pipeline).toEqual({ mode: 'file' });
});

test('a rule that names no configured server is a mistake at its line; a server the command line adds counts', () => {
  const rules = (server: string) =>
    yaml(
      'rules:',
      `  - server: ${server}`,
      '    mode: passthrough',
      'servers: {github: {command: node}, files: {command: node}}',
    );
  expect(problems(rules('githb'))).toEqual([
    '2:13 rule 1: server "githb" matches no configured server (did you mean "github"?)',
  ]);
  expect(problems(rules('"git*"'))).toEqual([]);
  expect(problems(rules('"docs*"'))).toEqual([
    '2:13 rule 1: server "docs*" matches no configured server (the servers are "github", "files")',
  ]);
  expect(() =>
    parseConfig(rules('browser'), '/etc/mcp-offload/config.yaml', {}, { extraServers: ['browser'] }),
  ).not.toThrow();
});

test('mistakes in pipeline settings and rules point at their line', () => {
  expect(
    problems(
      yaml(
        'pipeline: {mode: sometimes}',
        'rules:',
        '  - tool: x',
        '    inlinLimit: 3',
        '  - fields: [{mimeType: image/png}]',
        'servers: {a: {command: x}}',
      ),
    ),
  ).toEqual([
    expect.stringMatching(/^1:18 .*mode.*auto, file, passthrough/),
    expect.stringMatching(/^4:5 unknown key "inlinLimit".*did you mean "inlineLimit"/),
    expect.stringMatching(/^5:14 item 1 of "fields" is missing the required key "path"/),
  ]);
});

describe('rule precedence', () => {
  const config = parse(
    yaml(
      'pipeline: {inlineLimit: 100, previewChars: 10}',
      'rules:',
      '  - {tool: "get_*", inlineLimit: 400}',
      '  - {server: tableau, inlineLimit: 200, mode: passthrough}',
      '  - {server: tableau, tool: download_workbook, mode: auto}',
      '  - {server: tableau, tool: "download_*", inlineLimit: 300}',
      '  - {server: "*", keepInline: {audioMaxBytes: 5}}',
      'servers:',
      '  tableau: {command: x, pipeline: {previewChars: 20, inlineLimit: 150}}',
      '  other: {command: y}',
    ),
  );
  const book = new RuleBook(config, { other: { summary: 'preset' } });

  test('global, then per-server (block, then server rules), then per-tool rules in file order', () => {
    const download = book.settingsFor('tableau', 'download_workbook');
    expect(download.mode).toBe('auto');
    expect(download.inlineLimit).toBe(300);
    expect(download.previewChars).toBe(20);
    expect(download.keepInline).toEqual({ ...DEFAULT_PIPELINE.keepInline, audioMaxBytes: 5 });
  });

  test('a per-server rule beats the global block and the server block', () => {
    const view = book.settingsFor('tableau', 'get_view_as_pdf');
    expect(view.mode).toBe('passthrough');
    expect(view.inlineLimit).toBe(400);
    expect(book.settingsFor('tableau', 'list').inlineLimit).toBe(200);
  });

  test('presets sit under the server block and the rules; unmatched tools get the global settings', () => {
    const other = book.settingsFor('other', 'anything');
    expect(other).toEqual({
      ...DEFAULT_PIPELINE,
      inlineLimit: 100,
      previewChars: 10,
      summary: 'preset',
      keepInline: { ...DEFAULT_PIPELINE.keepInline, audioMaxBytes: 5 },
    });
  });

  test('settings are resolved once per server and tool', () => {
    expect(book.settingsFor('tableau', 'download_workbook')).toBe(book.settingsFor('tableau', 'download_workbook'));
  });
});
