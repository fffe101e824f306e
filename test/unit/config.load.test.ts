import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadConfigFile, parseConfig, type ParseOptions } from '../../src/config/load.js';
import {
  ConfigError,
  DEFAULTS,
  type Config,
  type HttpServerConfig,
  type StdioServerConfig,
} from '../../src/config/types.js';

const FILE = 'test.yaml';
const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

function parse(text: string, env: NodeJS.ProcessEnv = {}, options?: ParseOptions): Config {
  return parseConfig(text, FILE, env, options);
}

/** The problems of an invalid config as `line:column message`, in the order reported. */
function problems(text: string, env: NodeJS.ProcessEnv = {}, options?: ParseOptions): string[] {
  try {
    parse(text, env, options);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function onlyServer<K extends 'stdio' | 'http'>(config: Config, kind: K) {
  expect(config.servers).toHaveLength(1);
  const server = config.servers[0]!;
  expect(server.kind).toBe(kind);
  return server as K extends 'stdio' ? StdioServerConfig : HttpServerConfig;
}

describe('parseConfig: normalization', () => {
  test('artifacts.s3: what is left out gets its default, a request timeout among them; one under 100 ms is refused at its line', () => {
    const s3 = (...more: string[]) =>
      yaml(
        'servers:',
        '  everything:',
        '    command: npx',
        'artifacts:',
        '  backend: s3',
        '  s3:',
        '    bucket: team-bucket',
        '    endpoint: http://127.0.0.1:9000/',
        ...more,
      );
    expect(parse(s3()).artifacts.s3).toEqual({
      bucket: 'team-bucket',
      prefix: '',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      partSizeBytes: 8 * 1024 * 1024,
      uploadConcurrency: 4,
      timeoutMs: 30_000,
    });
    expect(parse(s3('    timeoutMs: 5000')).artifacts.s3?.timeoutMs).toBe(5000);
    expect(problems(s3('    timeoutMs: 50'))).toEqual([expect.stringMatching(/^9:\d+ .*timeoutMs.*100/)]);
  });

  test('a minimal stdio server gets every default', () => {
    const config = parse(yaml('servers:', '  everything:', '    command: npx'));
    expect(config).toEqual({
      logLevel: 'info',
      httpOptions: DEFAULTS.httpOptions,
      auth: DEFAULTS.auth,
      gateway: {
        disclosure: 'all',
        disclosureBudget: 10000,
        separator: '__',
        pageSize: 100,
        startupTimeoutMs: 30000,
        shutdownGraceMs: 10000,
        inputHoldMs: 600000,
      },
      artifacts: DEFAULTS.artifacts,
      pipeline: {},
      rules: [],
      servers: [
        {
          kind: 'stdio',
          name: 'everything',
          command: 'npx',
          args: [],
          env: {},
          enabled: true,
          timeoutMs: 60000,
          tools: { allow: [], deny: [] },
          prefix: undefined,
          whenDown: 'error',
          restart: { maxRetries: 0, initialDelayMs: 500, maxDelayMs: 30000 },
          source: { file: FILE, line: 2, column: 3 },
        },
      ],
    });
    expect(config.http).toBeUndefined();
    expect(config.file).toBeUndefined();
    expect('cwd' in config.servers[0]!).toBe(false);
  });

  test('every top-level section is read', () => {
    const config = parse(
      yaml(
        'logLevel: debug',
        'http: {port: 8080}',
        'gateway: {separator: "-", pageSize: 10, startupTimeoutMs: 0}',
        'artifacts: {dir: /tmp/artifacts}',
        'servers: {a: {command: x, cwd: /srv, tools: {allow: ["get_*"], deny: ["get_secret"]}}}',
      ),
    );
    expect(config.logLevel).toBe('debug');
    expect(config.http).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.gateway).toEqual({
      disclosure: 'all',
      disclosureBudget: 10000,
      separator: '-',
      pageSize: 10,
      startupTimeoutMs: 0,
      shutdownGraceMs: 10000,
      inputHoldMs: 600000,
    });
    expect(config.artifacts).toEqual({ ...DEFAULTS.artifacts, dir: '/tmp/artifacts' });
    const server = onlyServer(config, 'stdio');
    expect(server.cwd).toBe('/srv');
    expect(server.tools).toEqual({ allow: ['get_*'], deny: ['get_secret'] });
  });

  test('an "mcpServers" block pasted from Claude Desktop works unchanged', () => {
    const claudeDesktop = [
      '{',
      '  "mcpServers": {',
      '    "filesystem": {',
      '      "command": "npx",',
      '      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],',
      '      "env": {"DEBUG": "1"}',
      '    }',
      '  }',
      '}',
    ].join('\n');
    const server = onlyServer(parse(claudeDesktop), 'stdio');
    expect(server).toMatchObject({
      name: 'filesystem',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'],
      env: { DEBUG: '1' },
      source: { file: FILE, line: 3, column: 5 },
    });
  });

  test('the same block indented with tabs, as some editors save JSON, works too', () => {
    const server = onlyServer(parse('{\n\t"mcpServers": {\n\t\t"x": {"command": "npx"}\n\t}\n}\n'), 'stdio');
    expect(server.source).toEqual({ file: FILE, line: 3, column: 3 });
  });

  test('a Cursor-style url block is a remote server with transport auto', () => {
    const cursor =
      '{"mcpServers": {"remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}}}';
    const server = onlyServer(parse(cursor), 'http');
    expect(server).toMatchObject({
      name: 'remote',
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer x' },
      transport: 'auto',
    });
  });

  test.each([
    ['sse', 'sse'],
    ['http', 'streamable-http'],
    ['streamable-http', 'streamable-http'],
  ])('"type: %s" means a url with transport %s', (type, transport) => {
    const server = onlyServer(
      parse(yaml('servers:', '  r:', `    type: ${type}`, '    url: http://localhost:3001/sse')),
      'http',
    );
    expect(server.transport).toBe(transport);
  });

  test('"type: stdio" is accepted with a command; "transport" overrides "auto"', () => {
    expect(onlyServer(parse(yaml('servers: {a: {type: stdio, command: x}}')), 'stdio').command).toBe('x');
    expect(onlyServer(parse(yaml('servers: {a: {url: "http://h", transport: sse}}')), 'http').transport).toBe('sse');
    expect(
      onlyServer(parse(yaml('servers: {a: {url: "http://h", type: sse, transport: sse}}')), 'http').transport,
    ).toBe('sse');
  });

  test('servers keep the order of the file, even with number-like names', () => {
    const config = parse(
      yaml('servers:', '  zeta: {command: z}', '  "10": {command: t}', '  alpha: {command: a}', '  "2": {command: b}'),
    );
    expect(config.servers.map((s) => s.name)).toEqual(['zeta', '10', 'alpha', '2']);
  });

  test('the defaults block applies to every server unless the server overrides it', () => {
    const config = parse(
      yaml(
        'defaults:',
        '  enabled: false',
        '  timeoutMs: 5000',
        '  whenDown: wait',
        '  restart: {maxRetries: 3, maxDelayMs: 1000}',
        'servers:',
        '  plain: {command: a}',
        '  own:',
        '    command: b',
        '    enabled: true',
        '    timeoutMs: 100',
        '    whenDown: error',
        '    restart: {initialDelayMs: 10}',
      ),
    );
    const [plain, own] = config.servers;
    expect(plain).toMatchObject({
      enabled: false,
      timeoutMs: 5000,
      whenDown: 'wait',
      restart: { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 1000 },
    });
    // restart merges key by key: built-in, then defaults, then the server's own.
    expect(own).toMatchObject({
      enabled: true,
      timeoutMs: 100,
      whenDown: 'error',
      restart: { maxRetries: 3, initialDelayMs: 10, maxDelayMs: 1000 },
    });
  });

  test('"disabled" (Cline) is the opposite of "enabled", and overrides the defaults', () => {
    const config = parse(
      yaml(
        'defaults: {enabled: false}',
        'servers:',
        '  a: {command: x, disabled: true}',
        '  b: {command: y, disabled: false}',
      ),
    );
    expect(config.servers.map((s) => s.enabled)).toEqual([false, true]);
  });

  test.each([
    ['false', null],
    ['null', null],
    ['""', null],
    ['', null],
    ['gh', 'gh'],
    ['"my-prefix_1"', 'my-prefix_1'],
  ])('"prefix: %s" becomes %p', (written, expected) => {
    expect(
      onlyServer(parse(yaml('servers:', '  a:', '    command: x', `    prefix: ${written}`)), 'stdio').prefix,
    ).toBe(expected);
  });

  test('an absent prefix stays undefined, for the gateway to decide', () => {
    const server = onlyServer(parse(yaml('servers: {a: {command: x}}')), 'stdio');
    expect(server.prefix).toBeUndefined();
    expect('prefix' in server).toBe(true);
  });

  test('numbers and booleans where text is expected become their source text', () => {
    const server = onlyServer(
      parse(
        yaml(
          'servers:',
          '  a:',
          '    command: x',
          '    args: [--port, 8080, --verbose, true]',
          '    env: {VERSION: 1.10, DEBUG: false}',
        ),
      ),
      'stdio',
    );
    expect(server.args).toEqual(['--port', '8080', '--verbose', 'true']);
    expect(server.env).toEqual({ VERSION: '1.10', DEBUG: 'false' });
  });

  test('raising initialDelayMs alone raises maxDelayMs with it', () => {
    const server = onlyServer(parse(yaml('servers: {a: {command: x, restart: {initialDelayMs: 60000}}}')), 'stdio');
    expect(server.restart).toEqual({ maxRetries: 0, initialDelayMs: 60000, maxDelayMs: 60000 });
  });

  test('a YAML anchor can share settings between servers', () => {
    const config = parse(yaml('servers:', '  a: &common {command: x, timeoutMs: 5}', '  b: *common'));
    expect(config.servers.map((s) => [s.name, s.timeoutMs])).toEqual([
      ['a', 5],
      ['b', 5],
    ]);
  });

  test('a server may be called anything, even __proto__', () => {
    const config = parse(yaml('servers:', '  __proto__: {command: x}', '  "with/slash": {command: y}'));
    expect(config.servers.map((s) => s.name)).toEqual(['__proto__', 'with/slash']);
  });
});

describe('parseConfig: environment substitution', () => {
  test('${VAR}, ${VAR:-default} and $$ in values', () => {
    const config = parse(
      yaml(
        'servers:',
        '  gh:',
        '    url: "${BASE:-https://api.example.com}/mcp"',
        '    headers:',
        '      Authorization: "Bearer ${TOKEN}"',
        '      X-Price: "5$$"',
      ),
      { TOKEN: 't0k' },
    );
    const server = onlyServer(config, 'http');
    expect(server.url).toBe('https://api.example.com/mcp');
    expect(server.headers).toEqual({ Authorization: 'Bearer t0k', 'X-Price': '5$' });
  });

  test('keys are not substituted', () => {
    const server = onlyServer(
      parse(yaml('servers:', '  a:', '    command: x', '    env: {"${KEY}": "${VALUE}"}'), { KEY: 'k', VALUE: 'v' }),
      'stdio',
    );
    expect(server.env).toEqual({ '${KEY}': 'v' });
  });

  test('a substituted number is a number where the schema wants one', () => {
    const config = parse(yaml('http: {port: "${PORT:-3000}"}', 'servers: {a: {command: x, timeoutMs: "${T}"}}'), {
      T: '1500',
    });
    expect(config.http).toEqual({ host: '127.0.0.1', port: 3000 });
    expect(config.servers[0]!.timeoutMs).toBe(1500);
  });

  test('a missing variable is reported at the scalar, once', () => {
    const text = yaml(
      'servers:',
      '  github:',
      '    url: https://api.example.com/mcp',
      '    headers:',
      '      Authorization: Bearer ${GITHUB_TOKEN}',
      '  other:',
      '    url: ${OTHER_URL}',
    );
    expect(problems(text)).toEqual([
      '5:22 missing environment variable GITHUB_TOKEN (use ${GITHUB_TOKEN:-default} to give a default)',
      // The url is then empty, which would also fail its pattern; that is not repeated.
      '7:10 missing environment variable OTHER_URL (use ${OTHER_URL:-default} to give a default)',
    ]);
  });

  test('env defaults to process.env', () => {
    process.env.MCP_OFFLOAD_TEST_COMMAND = 'from-process-env';
    try {
      const config = parseConfig(yaml('servers: {a: {command: "${MCP_OFFLOAD_TEST_COMMAND}"}}'), FILE);
      expect((config.servers[0] as StdioServerConfig).command).toBe('from-process-env');
    } finally {
      delete process.env.MCP_OFFLOAD_TEST_COMMAND;
    }
  });
});

describe('parseConfig: problems', () => {
  test('an unknown key points at the key and suggests the closest one', () => {
    expect(problems(yaml('servers:', '  github:', '    comand: npx', '    args: []'))).toEqual([
      '2:3 server "github" needs either "command" (a local process) or "url" (a remote server)',
      '3:5 unknown key "comand" in server "github" (did you mean "command"?)',
    ]);
  });

  test('unknown keys at every level, with and without a suggestion', () => {
    expect(
      problems(
        yaml(
          'servrs: {}',
          'servers:',
          '  a:',
          '    command: x',
          '    restart: {maxretries: 1, foo: 2}',
          '  github: {command: y}',
          'github: {command: y}',
          'gateway: {separator: "__", page_size: 5}',
        ),
      ),
    ).toEqual([
      '1:1 unknown key "servrs" at the top level (did you mean "servers"?)',
      '5:15 unknown key "maxretries" in "restart" of server "a" (did you mean "maxRetries"?)',
      '5:30 unknown key "foo" in "restart" of server "a"',
      '7:1 unknown key "github" at the top level (servers go under "servers:")',
      '8:28 unknown key "page_size" in "gateway" (did you mean "pageSize"?)',
    ]);
  });

  test('resumable HTTP streams: the event store, its limits and the retry, with defaults for what is left out', () => {
    expect(parse(yaml('servers: {a: {command: x}}')).httpOptions).toMatchObject({
      eventStore: 'memory',
      retryMs: 1000,
      eventStoreLimits: { maxBytes: 64 * 1024 * 1024, maxEventsPerStream: 1000, keepAnsweredMs: 300_000 },
    });
    const config = parse(
      yaml('servers: {a: {command: x}}', 'http: {eventStore: none, retryMs: 250, eventStoreLimits: {maxBytes: 1000}}'),
    );
    expect(config.httpOptions).toMatchObject({
      eventStore: 'none',
      retryMs: 250,
      eventStoreLimits: { maxBytes: 1000, maxEventsPerStream: 1000, keepAnsweredMs: 300_000 },
    });
    expect(
      problems(yaml('servers: {a: {command: x}}', 'http: {eventStore: redis, eventStoreLimits: {maxEvents: 5}}')),
    ).toEqual([
      '2:20 "eventStore" must be one of memory, none, got "redis"',
      '2:46 unknown key "maxEvents" in "http.eventStoreLimits"',
    ]);
  });

  test('every problem is reported at once, sorted by line', () => {
    const text = yaml(
      'logLevel: verbose', // 1
      'servers:', // 2
      '  github:', // 3
      '    command: npx', // 4
      '    timeoutMs: abc', // 5
      '    whenDown: sometimes', // 6
      '  remote:', // 7
      '    url: https://example.com', // 8
      '    transport: websocket', // 9
      '    prefix: "has space"', // 10
      'http: {host: localhost, maxBodyBytes: 1}', // 11
      'gateway: {separator: "::", pageSize: 0}', // 12
    );
    expect(problems(text)).toEqual([
      '1:11 "logLevel" must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"',
      '5:16 "timeoutMs" must be a positive integer, got "abc"',
      '6:15 "whenDown" must be one of error, wait, got "sometimes"',
      '9:16 "transport" must be one of auto, streamable-http, sse, got "websocket"',
      '10:13 "prefix" must be a prefix of at most 32 letters, digits, "_" or "-", or false for none, got "has space"',
      '11:39 "maxBodyBytes" must be an integer of 1024 or more, got 1',
      '12:22 "separator" must be 1 to 4 letters, digits, "_" or "-", got "::"',
      '12:38 "pageSize" must be an integer from 1 to 10000, got 0',
    ]);
  });

  test('wrong types point at the value and say what was given', () => {
    expect(
      problems(
        yaml(
          'servers:',
          '  a:',
          '    command:',
          '    args: --verbose',
          '    env: {X: }',
          '    tools: {allow: [""], deny: "x"}',
          '    enabled: yes',
          '    timeoutMs: 2.5',
          '  b: "npx foo"',
          'http: {port: 70000}',
        ),
      ),
    ).toEqual([
      '3:13 "command" must be a non-empty string, got nothing',
      '4:11 "args" must be a list of strings, got "--verbose"',
      '5:14 "X" in "env" must be a string, got nothing',
      '6:21 item 1 of "allow" must not be empty',
      '6:32 "deny" must be a list of strings, got "x"',
      '7:14 "enabled" must be true or false, got "yes"',
      '8:16 "timeoutMs" must be a positive integer, got 2.5',
      '9:6 server "b" must be a mapping with "command" or "url", got "npx foo"',
      '10:14 "port" must be at most 65535, got 70000',
    ]);
  });

  test('a YAML syntax error stops there, with its line and column', () => {
    expect(problems(yaml('servers:', '  a:', '    command: x', '    args: [one, two', 'logLevel: info'))).toEqual([
      '5:1 YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    expect(problems(yaml('servers:', '  a: {command: x}', '  a: {command: y}'))).toEqual([
      '3:3 YAML syntax error: Map keys must be unique',
    ]);
  });

  test.each([
    [
      'a key indented less than its siblings',
      yaml('servers:', '  a:', '    command: node', '   args: [x]'),
      '4:4 YAML indentation: line 4 is indented 3 spaces, between line 2 (2 spaces) and line 3 (4 spaces): indent it like the line it belongs with',
    ],
    [
      'a key indented deeper than a line that already has its value',
      yaml('servers:', '  a:', '    command: node', '      args: [x]'),
      '4:7 YAML indentation: line 4 is indented 6 spaces, deeper than line 3 (4 spaces), which already has its value: indent it like line 3 to make it a sibling',
    ],
    [
      'a list item out of line',
      yaml('servers:', '  a:', '    command: node', '    args:', '      - x', '     - y'),
      '6:6 YAML indentation: line 6 is indented 5 spaces, between line 4 (4 spaces) and line 5 (6 spaces): indent it like the line it belongs with',
    ],
    [
      'a tab',
      yaml('servers:', '  a:', '\tcommand: node'),
      '3:1 YAML indentation: line 3 is indented with a tab; YAML indents with spaces only',
    ],
    [
      'a mistake after a list that is continued on the next line (not a mistake)',
      yaml(
        'servers:',
        '  a:',
        '    command: node',
        '    args: [a,',
        '      b]',
        '    env:',
        '      X: "1"',
        '     Y: "2"',
      ),
      '8:6 YAML indentation: line 8 is indented 5 spaces, between line 6 (4 spaces) and line 7 (6 spaces): indent it like the line it belongs with',
    ],
  ])('%s: reported once, on the line to fix, in plain words', (_what, text, expected) => {
    expect(problems(text)).toEqual([expected]);
  });

  test('a setting indented as a server name is named as such', () => {
    expect(problems(yaml('servers:', '  a:', '    command: node', '  args: [x]'))).toEqual([
      '4:9 server "args" must be a mapping with "command" or "url", got a list; "args" looks like a setting of server "a" indented as a server name: indent it under "a"',
    ]);
  });

  test('command and url: both, neither, and keys that belong to the other kind', () => {
    expect(
      problems(
        yaml(
          'servers:',
          '  x:',
          '    command: npx',
          '    url: https://example.com',
          '  y:',
          '    args: [a]',
          '  z:',
          '    url: https://example.com',
          '    cwd: /tmp',
          '  w:',
          '    command: npx',
          '    headers: {A: b}',
        ),
      ),
    ).toEqual([
      '2:3 server "x" has both "command" and "url"; use one',
      '5:3 server "y" needs either "command" (a local process) or "url" (a remote server)',
      '9:5 "cwd" applies only to a local process ("command"), but server "z" has a "url"',
      '12:5 "headers" applies only to a remote server ("url"), but server "w" has a "command"',
    ]);
  });

  test('exitGraceMs: a number of ms for a local process, and nothing else', () => {
    const server = onlyServer(parse(yaml('servers:', '  s:', '    command: npx', '    exitGraceMs: 30000')), 'stdio');
    expect(server.exitGraceMs).toBe(30000);
    expect(
      problems(
        yaml(
          'servers:',
          '  u:',
          '    url: https://example.com',
          '    exitGraceMs: 100',
          '  v:',
          '    command: npx',
          '    exitGraceMs: -1',
        ),
      ),
    ).toEqual([
      '4:5 "exitGraceMs" applies only to a local process ("command"), but server "u" has a "url"',
      expect.stringMatching(/^7:18 .*exitGraceMs/),
    ]);
  });

  test('"type" must agree with the rest of the entry', () => {
    expect(
      problems(
        yaml(
          'servers:',
          '  a: {type: stdio, url: "http://h"}',
          '  b: {type: sse, command: x}',
          '  c: {type: http}',
          '  d: {type: http, url: "http://h", transport: sse}',
          '  e: {type: websocket, url: "http://h"}',
        ),
      ),
    ).toEqual([
      '2:13 "type: stdio" means a local process, but server "a" has a "url"',
      '3:13 "type: sse" means a remote server, but server "b" has a "command"',
      '4:3 server "c" has "type: http" but no "url"',
      '5:47 "transport: sse" contradicts "type: http"; give one of them',
      '6:13 "type" must be one of stdio, http, streamable-http, sse, abp, got "websocket"',
    ]);
  });

  test('a url must be http(s) and parse', () => {
    expect(problems(yaml('servers:', '  a: {url: "ftp://example.com"}', '  b: {url: "http://[oops"}'))).toEqual([
      '2:12 "url" must be an http:// or https:// URL, got "ftp://example.com"',
      '3:12 "url" is not a valid URL: "http://[oops"',
    ]);
  });

  test('aliases given twice', () => {
    expect(problems(yaml('servers: {a: {command: x}}', 'mcpServers: {b: {command: y}}'))).toEqual([
      '2:1 both "servers" and "mcpServers" are given; use one',
    ]);
    expect(problems(yaml('servers:', '  a:', '    command: x', '    enabled: true', '    disabled: true'))).toEqual([
      '5:5 server "a" has both "enabled" and "disabled"; use one',
    ]);
  });

  test('"prefix: true" is rejected', () => {
    expect(problems(yaml('servers:', '  a:', '    command: x', '    prefix: true'))).toEqual([
      '4:13 "prefix: true" has no meaning; give the prefix itself, or false for none',
    ]);
  });

  test('restart delays given in the wrong order', () => {
    expect(
      problems(yaml('servers:', '  a:', '    command: x', '    restart: {initialDelayMs: 2000, maxDelayMs: 1000}')),
    ).toEqual(['4:49 "maxDelayMs" (1000) must be at least "initialDelayMs" (2000)']);
    expect(problems(yaml('defaults:', '  restart: {maxDelayMs: 100}', 'servers: {a: {command: x}}'))).toEqual([
      '2:25 "maxDelayMs" (100) must be at least "initialDelayMs" (500, the default)',
    ]);
  });

  test('an empty server name is rejected at the key', () => {
    expect(problems(yaml('servers:', '  ok: {command: x}', '  "": {command: y}'))).toEqual([
      '3:3 a server name must not be empty',
    ]);
  });

  test('no servers is an error unless allowed', () => {
    expect(problems('')).toEqual(['1:1 no servers configured']);
    expect(problems(yaml('# only a comment', 'logLevel: info'))).toEqual(['2:1 no servers configured']);
    expect(problems(yaml('logLevel: info', 'servers:'))).toEqual(['2:1 no servers configured']);
    expect(problems(yaml('logLevel: info', 'mcpServers: {}'))).toEqual(['2:1 no servers configured']);
    expect(parse('', {}, { allowNoServers: true })).toEqual({
      logLevel: DEFAULTS.logLevel,
      httpOptions: DEFAULTS.httpOptions,
      auth: DEFAULTS.auth,
      gateway: DEFAULTS.gateway,
      artifacts: DEFAULTS.artifacts,
      pipeline: {},
      rules: [],
      servers: [],
    });
  });

  test('a document that is not a mapping', () => {
    expect(problems(yaml('- a', '- b'))).toEqual(['1:1 the config file must be a mapping, got a list']);
  });

  test('ConfigError carries file, line, column, JSON pointer, and prints file:line:column', () => {
    let caught: unknown;
    try {
      parseConfig(yaml('servers:', '  "a/b":', '    command: x', '    timeoutMs: -1'), 'conf/mcp.yaml', {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.problems).toEqual([
      {
        file: 'conf/mcp.yaml',
        line: 4,
        column: 16,
        path: '/servers/a~1b/timeoutMs',
        message: '"timeoutMs" must be a positive integer, got -1',
      },
    ]);
    expect(error.message).toBe('conf/mcp.yaml:4:16: "timeoutMs" must be a positive integer, got -1');
    expect(error.name).toBe('ConfigError');
  });
});

describe('loadConfigFile', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-offload-config-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('reads the file and records its absolute path', async () => {
    const path = join(dir, 'ok.yaml');
    writeFileSync(path, yaml('servers:', '  a:', '    command: "${CMD}"'));
    const config = await loadConfigFile(relative(process.cwd(), path), { CMD: 'node' });
    expect(config.file).toBe(path);
    expect(onlyServer(config, 'stdio').command).toBe('node');
  });

  test('problems name the file as it was given', async () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(path, yaml('servers:', '  a: {command: x, bogus: 1}'));
    await expect(loadConfigFile(path, {})).rejects.toThrow(`${path}:2:19: unknown key "bogus" in server "a"`);
  });

  test('a missing file is a ConfigError at 1:1', async () => {
    const path = join(dir, 'missing.yaml');
    const error = await loadConfigFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const [problem] = (error as ConfigError).problems;
    expect(problem).toMatchObject({ file: path, line: 1, column: 1 });
    expect(problem!.message).toBe('cannot read config file: no such file (ENOENT)');
  });

  test('a directory is not a config file', async () => {
    await expect(loadConfigFile(dir)).rejects.toThrow(/cannot read config file: it is a directory \(EISDIR\)/);
  });

  test('allowNoServers is passed through', async () => {
    const path = join(dir, 'empty.yaml');
    writeFileSync(path, '# nothing yet\n');
    await expect(loadConfigFile(path, {})).rejects.toThrow('no servers configured');
    await expect(loadConfigFile(path, {}, { allowNoServers: true })).resolves.toMatchObject({
      servers: [],
      file: path,
    });
  });
});
