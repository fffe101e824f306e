// artifacts.viewer: the artifact viewer (an MCP App) and the upstream tools linked to it, read and checked.
import { parseConfig } from '../../src/config/load.js';
import { ConfigError, DEFAULTS } from '../../src/config/types.js';

const FILE = '/etc/mcp-offload/config.yaml';
const SERVERS = ['servers:', '  tableau: {command: node}', '  files: {command: node}'];
const parse = (...lines: string[]) => parseConfig([...lines, ...SERVERS].join('\n'), FILE, {});

function problems(...lines: string[]): string[] {
  try {
    parse(...lines);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    throw error;
  }
  return [];
}

test('by default the viewer is on under the name artifact_view, and no upstream tool is linked to it', () => {
  expect(parse().artifacts.viewer).toEqual({ enabled: true, toolName: 'artifact_view', linkTools: [] });
  expect(DEFAULTS.artifacts.viewer.linkTools).toEqual([]);
});

test('its settings are read as given', () => {
  const config = parse('artifacts: {viewer: {toolName: show_file, linkTools: ["tableau/download_*", "*/read_*"]}}');
  expect(config.artifacts.viewer).toEqual({
    enabled: true,
    toolName: 'show_file',
    linkTools: ['tableau/download_*', '*/read_*'],
  });
  expect(parse('artifacts: {viewer: {enabled: false}}').artifacts.viewer.enabled).toBe(false);
});

test('a glob that is not <server>/<tool>, or names no configured server, is reported where it is written', () => {
  expect(problems('artifacts: {viewer: {linkTools: [download_*]}}')).toEqual([
    '1:34 item 1 of "linkTools" must be a "<server>/<tool>" glob, such as "files/read_*", got "download_*"',
  ]);
  expect(problems('artifacts: {viewer: {linkTools: ["tablaeu/download_*"]}}')).toEqual([
    '1:34 linkTools: "tablaeu/download_*" names no configured server (did you mean "tableau/download_*"?)',
  ]);
  expect(problems('artifacts: {viewer: {linkTools: ["gh*/x"]}}')).toEqual([
    '1:34 linkTools: "gh*/x" names no configured server (the servers are "tableau", "files")',
  ]);
});

test("the viewer's tool may not take a built-in artifact tool's name, unless one of the two is off", () => {
  expect(problems('artifacts: {viewer: {toolName: artifact_read}}')).toEqual([
    '1:32 the viewer\'s tool is named "artifact_read", as a built-in artifact tool is: give it another name',
  ]);
  expect(problems('artifacts: {tools: {listName: artifact_view}}')).toEqual([
    '1:31 the viewer\'s tool is named "artifact_view", as a built-in artifact tool is: give it another name',
  ]);
  expect(problems('artifacts: {viewer: {toolName: artifact_read, enabled: false}}')).toEqual([]);
  expect(problems('artifacts: {tools: {enabled: false}, viewer: {toolName: artifact_read}}')).toEqual([]);
});
