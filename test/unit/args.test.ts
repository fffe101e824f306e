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
    "unknown option --bogus; the wrapped server's own options go after its command, as in: mcp-offload <command> --bogus",
  ],
  [
    ['--configg', 'a.yaml'],
    "unknown option --configg (did you mean --config?); the wrapped server's own options go after its command, as in: mcp-offload <command> --configg",
  ],
  [
    ['--dry-runn'],
    "unknown option --dry-runn (did you mean --dry-run?); the wrapped server's own options go after its command, as in: mcp-offload <command> --dry-runn",
  ],
  [['-x'], "unknown option -x; the wrapped server's own options go after its command, as in: mcp-offload <command> -x"],
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
  expect(() => parseCliArgs(['login', 'x', 'y', '--config', 'a.yaml'])).toThrow(/usage: mcp-offload login/);
  expect(() => parseCliArgs(['login', 'x', '--config', 'a.yaml', '--http', '8080'])).toThrow(/usage/);
});

test('the wrapped command starts at the first argument that is not ours, "--" or not', () => {
  expect(parseCliArgs(['node', 'server.js'])).toMatchObject({ command: 'run', serverCommand: ['node', 'server.js'] });
  // Our options before it (with their values, either spelling); the server's own options after it are its own.
  expect(parseCliArgs(['--log-level', 'warn', '--http=9', 'npx', '-y', 'pkg', '--port', '3', '--'])).toMatchObject({
    logLevel: 'warn',
    http: { host: '127.0.0.1', port: 9 },
    serverCommand: ['npx', '-y', 'pkg', '--port', '3', '--'],
  });
  expect(parseCliArgs(['-c', 'a.yaml'])).toMatchObject({ config: 'a.yaml', serverCommand: [] });
  expect(parseCliArgs(['--dry-run', 'serve', '--', 'x']).serverCommand).toEqual(['serve', '--', 'x']);
  expect(parseCliArgs(['--', 'node', '--inspect', 's.js']).serverCommand).toEqual(['node', '--inspect', 's.js']);
  // Subcommands and a login's server name are ours.
  expect(parseCliArgs(['gc'])).toMatchObject({ command: 'gc', serverCommand: [] });
  expect(parseCliArgs(['login', 'linear', '--config', 'a.yaml'])).toMatchObject({ serverName: 'linear' });
  expect(() => parseCliArgs(['--frobnicate', 'node', 's.js'])).toThrow(/^unknown option --frobnicate;/);
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
