// cspell:ignore Secrt
import { resolve } from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import { ConfigError, type HttpServerConfig } from '../../src/config/types.js';

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

function server(text: string, env: NodeJS.ProcessEnv = {}): HttpServerConfig {
  const config = parseConfig(text, '/etc/mcp/config.yaml', env);
  return config.servers[0] as HttpServerConfig;
}

function problems(text: string): string[] {
  try {
    parseConfig(text, 'c.yaml', {});
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

test('absent or false: no oauth; true: every default', () => {
  expect(server(yaml('servers:', '  l:', '    url: https://x/mcp')).oauth).toBeUndefined();
  expect(server(yaml('servers:', '  l:', '    url: https://x/mcp', '    oauth: false')).oauth).toBeUndefined();
  expect(server(yaml('servers:', '  l:', '    url: https://x/mcp', '    oauth: true')).oauth).toEqual({});
});

test('settings are kept; a relative token file is relative to the config file; ${VAR} works in a secret', () => {
  const oauth = server(
    yaml(
      'servers:',
      '  l:',
      '    url: https://x/mcp',
      '    oauth:',
      '      clientId: c',
      '      clientSecret: ${SECRET}',
      '      scopes: [read, write]',
      '      tokenFile: tokens/l.json',
      '      callbackPort: 8976',
    ),
    { SECRET: 's3cret' },
  ).oauth;
  expect(oauth).toEqual({
    clientId: 'c',
    clientSecret: 's3cret',
    scopes: ['read', 'write'],
    tokenFile: resolve('/etc/mcp/tokens/l.json'),
    callbackPort: 8976,
  });
});

test('mistakes are reported where they are', () => {
  expect(problems(yaml('servers:', '  l:', '    command: node', '    oauth: true'))).toEqual([
    '4:5 "oauth" applies only to a remote server ("url"), but server "l" has a "command"',
  ]);
  expect(problems(yaml('servers:', '  l:', '    url: https://x/mcp', '    oauth:', '      clientSecrt: s'))).toEqual([
    expect.stringMatching(/^5:7 .*clientSecrt.*clientSecret/),
  ]);
  expect(
    problems(
      yaml('servers:', '  l:', '    url: https://x/mcp', '    oauth:', '      clientMetadataUrl: http://x/c.json'),
    ),
  ).toEqual([expect.stringMatching(/^5:26 /)]);
  expect(problems(yaml('servers:', '  l:', '    url: https://x/mcp', '    oauth: yes'))).toEqual([
    expect.stringMatching(/^4:12 /),
  ]);
});
