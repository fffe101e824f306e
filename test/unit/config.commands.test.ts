import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/types.js';

const dir = mkdtempSync(join(tmpdir(), 'config-commands-'));
const script = join(dir, 'server.sh');
writeFileSync(script, '#!/bin/sh\n');
chmodSync(script, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const env = { PATH: dirname(process.execPath) };

function problems(text: string, environment: NodeJS.ProcessEnv = env): string[] {
  try {
    parseConfig(text, 'c.yaml', environment, { checkCommands: true });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    throw error;
  }
}

test('a command that is not on the PATH is a problem at its line, with the closest program', () => {
  expect(problems(yaml('servers:', '  a:', '    command: nodee'))).toEqual([
    '3:14 command not found: nodee (did you mean "node"?)',
  ]);
  expect(problems(yaml('servers:', '  a:', '    command: node'))).toEqual([]);
});

test("a path is looked for from the server's cwd", () => {
  expect(problems(yaml('servers:', '  a:', `    cwd: ${dir}`, '    command: ./server.sh'))).toEqual([]);
  expect(problems(yaml('servers:', '  a:', `    cwd: ${dir}`, '    command: ./missing.sh'))).toEqual([
    `4:14 command not found: ./missing.sh (no executable file at ${join(dir, 'missing.sh')})`,
  ]);
});

test("the server's own PATH is the one that counts, after ${VAR} substitution", () => {
  expect(
    problems(yaml('servers:', '  a:', '    command: server.sh', '    env: {PATH: "${TOOLS}"}'), { ...env, TOOLS: dir }),
  ).toEqual([]);
  expect(problems(yaml('servers:', '  a:', '    command: server.sh'))).toEqual([
    `3:14 command not found: server.sh (looked in the PATH: ${env.PATH})`,
  ]);
});

test('without checkCommands (a gateway started elsewhere than where it was checked) nothing is looked up', () => {
  expect(() => parseConfig(yaml('servers:', '  a:', '    command: nodee'), 'c.yaml', env)).not.toThrow();
});
