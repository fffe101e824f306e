// The parts of progressive disclosure that need no gateway: argument checks in both schema dialects, the
// auto mode's choice, the vocabulary, the YAML and the command line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { argumentProblem } from '../../src/relay/disclosure/arguments.js';
import { searching, searchesToolsItself } from '../../src/relay/disclosure/mode.js';
import { ToolIndex } from '../../src/relay/disclosure/tool-index.js';
import { loadConfigFile } from '../../src/config/load.js';
import { parseCliArgs } from '../../src/cli/args.js';

const tool = (inputSchema: Record<string, unknown>): Tool => ({
  name: 't',
  inputSchema: inputSchema as Tool['inputSchema'],
});

describe('arguments are checked in the dialect the schema is written in', () => {
  test('draft-07: definitions and $ref', () => {
    const t = tool({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { id: { type: 'integer' } },
      properties: { id: { $ref: '#/definitions/id' } },
      required: ['id'],
      additionalProperties: false,
    });
    expect(argumentProblem(t, { id: 3 })).toBeUndefined();
    expect(argumentProblem(t, { id: 'x' })).toBe('argument "id" must be integer');
    expect(argumentProblem(t, {})).toBe('missing required argument "id"');
    expect(argumentProblem(t, { id: 1, extra: true })).toBe('unknown argument "extra"');
  });

  test('2020-12: $defs and prefixItems', () => {
    const t = tool({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { mode: { enum: ['fast', 'slow'] } },
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { $ref: '#/$defs/mode' }] } },
    });
    expect(argumentProblem(t, { pair: ['a', 'fast'] })).toBeUndefined();
    expect(argumentProblem(t, { pair: ['a', 'medium'] })).toBe('argument "pair.1" must be one of ["fast","slow"]');
  });
});

describe('auto', () => {
  test('Claude Code and Copilot CLI search tools themselves; others do not', () => {
    expect(searchesToolsItself({ name: 'claude-code', version: '2' })).toBe(true);
    expect(searchesToolsItself({ name: 'copilot-cli', version: '1' })).toBe(true);
    expect(searchesToolsItself({ name: 'codex-mcp-client', version: '1' })).toBe(false);
  });

  test('search only over the budget and for a client without its own search', () => {
    const agent = { name: 'agent', version: '1' };
    expect(searching('auto', agent, () => 101, 100)).toBe(true);
    expect(searching('auto', agent, () => 100, 100)).toBe(false);
    expect(searching('auto', { name: 'claude-code', version: '1' }, () => 1e9, 100)).toBe(false);
    expect(searching('search', { name: 'claude-code', version: '1' }, () => 0, 100)).toBe(true);
    expect(searching('all', agent, () => 1e9, 100)).toBe(false);
  });
});

describe('search', () => {
  const t = (name: string, server: string, description: string): { name: string; server: string; tool: Tool } => ({
    name,
    server,
    tool: { name, description, inputSchema: { type: 'object' } },
  });
  const index = new ToolIndex([
    t('gh__create_pull_request', 'gh', 'Create a new pull request in a GitHub repository.'),
    t('gh__create_issue', 'gh', 'Create a new issue in a GitHub repository.'),
    t('web__handle_dialog', 'web', 'If a browser dialog was opened, use this command to handle it'),
    t('web__take_screenshot', 'web', 'Take a screenshot of the page or element.'),
    t('web__click', 'web', 'Clicks on the provided element'),
    t('gh__list_secret_scanning_alerts', 'gh', 'List secret scanning alerts in a GitHub repository.'),
    t('gh__list_code_scanning_alerts', 'gh', 'List code scanning alerts in a GitHub repository.'),
  ]);
  test.each([
    ['open a PR', 'gh__create_pull_request'],
    ['dismiss the popup', 'web__handle_dialog'],
    ['snap a picture of the page', 'web__take_screenshot'],
    ['check for leaked keys', 'gh__list_secret_scanning_alerts'],
  ])('"%s" finds %s first', (query, expected) => {
    expect(index.search(query, 1).map((x) => x.name)).toEqual([expected]);
  });
});

describe('configuration', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'disclosure-config-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = (yaml: string) => {
    const file = join(dir, 'c.yaml');
    writeFileSync(file, yaml);
    return loadConfigFile(file);
  };

  test('gateway.disclosure is read from YAML, all by default', async () => {
    const servers = 'servers:\n  a:\n    command: node\n';
    expect((await load(servers)).gateway.disclosure).toBe('all');
    const config = await load(`${servers}gateway:\n  disclosure: auto\n  disclosureBudget: 5000\n`);
    expect(config.gateway).toMatchObject({ disclosure: 'auto', disclosureBudget: 5000 });
  });

  test('a wrong value is an error naming file and line', async () => {
    await expect(load('servers:\n  a:\n    command: node\ngateway:\n  disclosure: sometimes\n')).rejects.toThrow(
      /c\.yaml:5.*disclosure/s,
    );
  });

  test('--disclosure on the command line', () => {
    expect(parseCliArgs(['--disclosure', 'search', '--', 'node', 's.js']).disclosure).toBe('search');
    expect(() => parseCliArgs(['--disclosure', 'some', '--', 'node'])).toThrow(/--disclosure must be one of/);
  });
});
