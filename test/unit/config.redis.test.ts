// The redis section and http.advertiseUrl: defaults, ${ENV} substitution, and errors at file:line.
import { parseConfig } from '../../src/config/load.js';
import { ConfigError, DEFAULTS, type Config } from '../../src/config/types.js';

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const SERVER = ['servers:', '  s: {command: node}'];

function parse(text: string, env: NodeJS.ProcessEnv = {}): Config {
  return parseConfig(text, 'test.yaml', env);
}

function problems(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parse(text, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.message}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config: redis', () => {
  test('absent, nothing is shared: no redis key in the config, and http options as before', () => {
    const config = parse(yaml(...SERVER));
    expect(config.redis).toBeUndefined();
    expect(config.httpOptions).toEqual(DEFAULTS.httpOptions);
    expect('advertiseUrl' in config.httpOptions).toBe(false);
  });

  test('a url alone gets every default; ${VAR} works in it and in advertiseUrl', () => {
    const config = parse(
      yaml(
        ...SERVER,
        'http: {advertiseUrl: "http://${POD_IP}:8080/"}',
        'redis: {url: "redis://:${REDIS_PASSWORD}@redis:6379/0"}',
      ),
      { POD_IP: '10.1.2.3', REDIS_PASSWORD: 'p4ss' },
    );
    expect(config.redis).toEqual({
      url: 'redis://:p4ss@redis:6379/0',
      keyPrefix: 'mcp-offload:',
      heartbeatMs: 5000,
      eventTtlSeconds: 1800,
      sessionTtlSeconds: 86400,
    });
    // The trailing slash goes: paths are appended to it.
    expect(config.httpOptions.advertiseUrl).toBe('http://10.1.2.3:8080');
  });

  test('every key can be set', () => {
    const config = parse(
      yaml(
        ...SERVER,
        'redis:',
        '  url: rediss://cache.example.com:6380',
        '  keyPrefix: "team-a:"',
        '  heartbeatMs: 2000',
        '  eventTtlSeconds: 600',
        '  sessionTtlSeconds: 3600',
      ),
    );
    expect(config.redis).toEqual({
      url: 'rediss://cache.example.com:6380',
      keyPrefix: 'team-a:',
      heartbeatMs: 2000,
      eventTtlSeconds: 600,
      sessionTtlSeconds: 3600,
    });
  });

  test('mistakes are reported at their line', () => {
    const found = problems(
      yaml(
        ...SERVER,
        'http:',
        '  advertiseUrl: 10.0.0.1:8080',
        'redis:',
        '  url: http://redis:6379',
        '  heartbeatMs: 10',
        '  keyPrefx: "x:"',
      ),
    );
    expect(found).toHaveLength(4);
    expect(found[0]).toMatch(/^test\.yaml:4:17: .*advertiseUrl/);
    expect(found.find((p) => p.startsWith('test.yaml:6:8: '))).toMatch(/url/);
    expect(found.find((p) => p.startsWith('test.yaml:7:16: '))).toMatch(/heartbeatMs|100/);
    expect(found.find((p) => p.startsWith('test.yaml:8:3: '))).toMatch(/keyPrefix/);
  });

  test('a redis section without a url is an error', () => {
    expect(problems(yaml(...SERVER, 'redis: {keyPrefix: "x:"}')).join('\n')).toMatch(/^test\.yaml:3:\d+: .*url/m);
  });

  test('a missing environment variable in the url is an error at its line', () => {
    expect(problems(yaml(...SERVER, 'redis: {url: "redis://${REDIS_HOST}:6379"}')).join('\n')).toMatch(
      /^test\.yaml:3:\d+: missing environment variable REDIS_HOST/m,
    );
  });
});
