import { parseCliArgs, UsageError } from '../../src/cli/args.js';

test('wraps a command given after --, leaving its own options alone', () => {
  const args = parseCliArgs([
    '--log-level',
    'debug',
    '--',
    'npx',
    '-y',
    '@modelcontextprotocol/server-everything',
    '--help',
  ]);
  expect(args.command).toBe('run');
  expect(args.logLevel).toBe('debug');
  expect(args.serverCommand).toEqual(['npx', '-y', '@modelcontextprotocol/server-everything', '--help']);
});

test('parses --http with and without a host', () => {
  expect(parseCliArgs(['--http', '8080', '--url', 'http://x/mcp']).http).toEqual({ host: '127.0.0.1', port: 8080 });
  expect(parseCliArgs(['--http', '0.0.0.0:9', '--url', 'http://x/mcp']).http).toEqual({ host: '0.0.0.0', port: 9 });
  expect(parseCliArgs(['--http', '[::1]:9', '--url', 'http://x/mcp']).http).toEqual({ host: '::1', port: 9 });
  expect(() => parseCliArgs(['--http', 'nope', '--url', 'http://x'])).toThrow(UsageError);
});

test('validate needs --config', () => {
  expect(parseCliArgs(['validate', '--config', 'a.yaml'])).toMatchObject({ command: 'validate', config: 'a.yaml' });
  expect(() => parseCliArgs(['validate'])).toThrow(/--config/);
});

test('unknown options, stray words and several sources are errors', () => {
  expect(() => parseCliArgs(['--frobnicate', '--', 'x'])).toThrow(/^unknown option --frobnicate;/);
  expect(() => parseCliArgs(['serve', '--', 'x'])).toThrow(/unexpected argument "serve"/);
  expect(() => parseCliArgs(['--url', 'http://x', '--', 'y'])).toThrow(/not several/);
  expect(() => parseCliArgs([])).toThrow(/nothing to proxy/);
  expect(() => parseCliArgs(['--log-level', 'loud', '--', 'x'])).toThrow(/--log-level must be one of/);
});

test('headers go with --url', () => {
  expect(parseCliArgs(['--url', 'http://x', '--header', 'Authorization: Bearer t']).headers).toEqual({
    Authorization: 'Bearer t',
  });
  expect(() => parseCliArgs(['--header', 'A: b', '--', 'x'])).toThrow(/--header goes with --url/);
});

test('help and version win', () => {
  expect(parseCliArgs(['--help']).command).toBe('help');
  expect(parseCliArgs(['-v']).command).toBe('version');
});

test.each([
  [
    ['--bogus'],
    'unknown option --bogus; the wrapped server\'s own options go after "--", as in: mcp-offload -- <command> --bogus',
  ],
  [
    ['--configg', 'a.yaml'],
    'unknown option --configg (did you mean --config?); the wrapped server\'s own options go after "--", as in: mcp-offload -- <command> --configg',
  ],
  [
    ['--dry-runn'],
    'unknown option --dry-runn (did you mean --dry-run?); the wrapped server\'s own options go after "--", as in: mcp-offload -- <command> --dry-runn',
  ],
  [['-x'], 'unknown option -x; the wrapped server\'s own options go after "--", as in: mcp-offload -- <command> -x'],
  [['--config'], '--config needs a value'],
  [['--dry-run=yes', '--url', 'http://x'], '--dry-run takes no value'],
])('%j: a message in plain words, with balanced quotes', (argv, message) => {
  expect(() => parseCliArgs(argv)).toThrow(new UsageError(message));
  expect(message.split('"').length % 2).toBe(1);
});

test('login and logout take a server of --config, or --url', () => {
  expect(parseCliArgs(['login', 'linear', '--config', 'a.yaml'])).toMatchObject({
    command: 'login',
    serverName: 'linear',
    config: 'a.yaml',
  });
  expect(parseCliArgs(['logout', '--url', 'https://mcp.linear.app/mcp', '--name', 'l'])).toMatchObject({
    command: 'logout',
    url: 'https://mcp.linear.app/mcp',
    name: 'l',
  });
  expect(() => parseCliArgs(['login', '--config', 'a.yaml'])).toThrow(/needs the server's name/);
  expect(() => parseCliArgs(['login', 'linear'])).toThrow(/needs a server/);
  expect(() => parseCliArgs(['login', 'x', '--url', 'https://a/mcp'])).toThrow(/goes in --name/);
  expect(() => parseCliArgs(['login', 'x', 'y', '--config', 'a.yaml'])).toThrow(/unexpected argument "x"/);
  expect(() => parseCliArgs(['login', 'x', '--config', 'a.yaml', '--http', '8080'])).toThrow(/usage/);
});

test('stats: --audit-log and --json go with it and nothing else; it proxies nothing', () => {
  expect(parseCliArgs(['stats', '--audit-log', 'a.log', '--json', '--artifact-dir', '/d'])).toMatchObject({
    command: 'stats',
    auditLog: 'a.log',
    json: true,
    artifactDir: '/d',
  });
  expect(parseCliArgs(['stats'])).toMatchObject({ command: 'stats', json: false });
  expect(() => parseCliArgs(['stats', '--', 'node', 'x'])).toThrow(/stats takes only/);
  expect(() => parseCliArgs(['--json', '--', 'node', 'x'])).toThrow(/go with stats/);
});
