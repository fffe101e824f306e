// `type: abp` servers in YAML: validation with file:line:column, the ABP bridge's environment variables as
// defaults, the preset the pipeline applies to them, and ABP_OUTPUT_DIR as the artifact directory.
import { describe, expect, test } from '@jest/globals';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { storeOptions } from '../../src/artifacts/options.js';
import { parseConfig } from '../../src/config/load.js';
import { ConfigError, type AbpServerConfig, type Config } from '../../src/config/types.js';
import { RuleBook } from '../../src/pipeline/rules.js';
import { abpPresets } from '../../src/upstreams/abp/preset.js';
import {
  ABP_DEFAULTS,
  abpEnvironment,
  abpRequestTimeoutMs,
  CHROME_WEB_STORE_URL,
  resolveAbpOptions,
} from '../../src/config/abp.js';
import { browserOptionsFor } from '../../src/upstreams/abp/browser-options.js';

const FILE = 'abp.yaml';
const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const parse = (text: string, env: NodeJS.ProcessEnv = {}): Config => parseConfig(text, FILE, env);

function problems(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parse(text, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const abpOf = (config: Config): AbpServerConfig => {
  const server = config.servers[0]!;
  if (server.kind !== 'abp') throw new Error(`expected an abp server, got ${server.kind}`);
  return server;
};

describe('a type: abp server', () => {
  test("needs nothing else; every setting has the seed's default and the gateway clock leaves room for retries", () => {
    const server = abpOf(parse(yaml('servers:', '  browser: {type: abp}')));
    expect(server.abp).toEqual({
      headless: true,
      browserTimeoutMs: 30_000,
      callTimeoutMs: 60_000,
      downloadTimeoutMs: 30_000,
      abpWaitMs: 10_000,
      extensionStoreUrl: CHROME_WEB_STORE_URL,
      extensionCacheDir: join(tmpdir(), 'mcp-offload-abp-extensions'),
      elicitation: 'defaults',
      retries: { maxRetries: 3, initialDelayMs: 1000 },
    });
    // Four attempts of a minute and 1 + 2 + 4 s of back-off, plus a margin.
    expect(server.timeoutMs).toBe(4 * 60_000 + 7_000 + 10_000);
    expect(server).toMatchObject({ name: 'browser', enabled: true, prefix: undefined });
  });

  test('its settings are read, paths made absolute; an explicit timeoutMs is kept', () => {
    const server = abpOf(
      parse(
        yaml(
          'servers:',
          '  browser:',
          '    type: abp',
          '    timeoutMs: 5000',
          '    abp:',
          '      executablePath: ./bin/chrome',
          '      headless: false',
          '      callTimeoutMs: 1500',
          '      userDataDir: profiles',
          '      elicitation: cancel',
          '      retries: {maxRetries: 0}',
          '      logLevel: debug',
        ),
      ),
    );
    expect(server.timeoutMs).toBe(5000);
    expect(server.abp).toMatchObject({
      executablePath: resolve('bin/chrome'),
      headless: false,
      callTimeoutMs: 1500,
      userDataDir: resolve('profiles'),
      elicitation: 'cancel',
      retries: { maxRetries: 0, initialDelayMs: 1000 },
      logLevel: 'debug',
    });
  });

  test('the ABP_* environment variables are defaults; the config wins over them', () => {
    const env = {
      ABP_HEADLESS: 'false',
      ABP_BROWSER_TIMEOUT: '1000',
      ABP_CALL_TIMEOUT: '2000',
      ABP_DOWNLOAD_TIMEOUT: '3000',
      ABP_LOG_LEVEL: 'DEBUG',
    };
    const fromEnv = abpOf(parse(yaml('servers:', '  browser: {type: abp}'), env)).abp;
    expect(fromEnv).toMatchObject({
      headless: false,
      browserTimeoutMs: 1000,
      callTimeoutMs: 2000,
      downloadTimeoutMs: 3000,
      logLevel: 'debug',
    });
    const written = abpOf(
      parse(yaml('servers:', '  browser: {type: abp, abp: {headless: true, callTimeoutMs: 10}}'), env),
    ).abp;
    expect(written).toMatchObject({ headless: true, callTimeoutMs: 10, browserTimeoutMs: 1000 });
  });

  test('unusable environment values are reported at the server, each in plain words', () => {
    expect(
      problems(yaml('servers:', '  browser:', '    type: abp'), { ABP_CALL_TIMEOUT: 'soon', ABP_HEADLESS: 'maybe' }),
    ).toEqual([
      'abp.yaml:3:11: ABP_HEADLESS must be true or false, got "maybe" (the environment of server "browser")',
      'abp.yaml:3:11: ABP_CALL_TIMEOUT must be a whole number of milliseconds (1 or more), got "soon" (the environment of server "browser")',
    ]);
    // Without a browser backend nobody reads them.
    expect(parse(yaml('servers:', '  x: {command: y}'), { ABP_CALL_TIMEOUT: 'soon' }).servers).toHaveLength(1);
  });

  test('bad settings are errors at their line, with suggestions', () => {
    expect(
      problems(
        yaml(
          'servers:',
          '  browser:',
          '    type: abp',
          '    abp:',
          '      headles: false',
          '      callTimeoutMs: -1',
          '      elicitation: ask',
          '      extensionStoreUrl: https://store.example/crx',
        ),
      ),
    ).toEqual([
      'abp.yaml:5:7: unknown key "headles" in "abp" of server "browser" (did you mean "headless"?)',
      'abp.yaml:6:22: "callTimeoutMs" must be a positive integer, got -1',
      'abp.yaml:7:20: "elicitation" must be one of defaults, cancel, got "ask"',
      'abp.yaml:8:26: "extensionStoreUrl" must contain {id}, where the extension\'s id goes',
    ]);
  });

  test('command, url and their keys do not go with type: abp; abp settings need it', () => {
    expect(problems(yaml('servers:', '  b:', '    type: abp', '    command: node', '    headers: {A: b}'))).toEqual([
      'abp.yaml:4:5: "command" does not apply to the built-in browser backend ("type: abp") of server "b"',
      'abp.yaml:5:5: "headers" does not apply to the built-in browser backend ("type: abp") of server "b"',
    ]);
    expect(problems(yaml('servers:', '  b:', '    command: node', '    abp: {headless: false}'))).toEqual([
      'abp.yaml:4:5: "abp" settings apply only to the built-in browser backend; add "type: abp" to server "b" or remove them',
    ]);
  });
});

describe('environment and options', () => {
  test('empty variables are unset; booleans read as people write them', () => {
    expect(abpEnvironment({ ABP_HEADLESS: '', ABP_CALL_TIMEOUT: ' ' })).toEqual({ values: {}, problems: [] });
    for (const word of ['0', 'no', 'OFF', 'False'])
      expect(abpEnvironment({ ABP_HEADLESS: word }).values.headless).toBe(false);
    for (const word of ['1', 'yes', 'on', 'TRUE'])
      expect(abpEnvironment({ ABP_HEADLESS: word }).values.headless).toBe(true);
    expect(abpEnvironment({ ABP_BROWSER_TIMEOUT: '1.5' }).problems).toEqual([
      'ABP_BROWSER_TIMEOUT must be a whole number of milliseconds (1 or more), got "1.5"',
    ]);
  });

  test('each named session gets its own profile folder', () => {
    const options = resolveAbpOptions({ userDataDir: '/profiles', executablePath: '/opt/chrome/chrome' }, {});
    const agent = { name: 'mcp-offload', version: '1' };
    expect(browserOptionsFor(options, 'default', agent)).toMatchObject({
      userDataDir: '/profiles/default',
      executablePath: '/opt/chrome/chrome',
      agent,
    });
    expect(browserOptionsFor(options, 'work', agent).userDataDir).toBe('/profiles/work');
    expect(browserOptionsFor(resolveAbpOptions({}, {}), 'work', agent)).not.toHaveProperty('userDataDir');
  });

  test('the gateway clock covers a connect when that takes longer than the calls', () => {
    const options = resolveAbpOptions(
      { callTimeoutMs: 1000, browserTimeoutMs: 60_000, retries: { maxRetries: 0 } },
      {},
    );
    expect(abpRequestTimeoutMs(options)).toBe(2 * 60_000 + ABP_DEFAULTS.abpWaitMs + 10_000);
  });
});

describe('the ABP preset', () => {
  const config = parse(
    yaml(
      'servers:',
      '  browser: {type: abp}',
      '  custom: {type: abp, pipeline: {mode: auto}}',
      '  other: {command: x}',
      'rules:',
      '  - {server: browser, tool: abp_export_pdf, mode: auto}',
    ),
  );
  const book = new RuleBook(config, abpPresets(config.servers).servers, abpPresets(config.servers).tools);

  test('every abp server saves successful results to files; connect, disconnect and status stay inline', () => {
    expect(book.settingsFor('browser', 'abp_call')).toMatchObject({ mode: 'file', download: { timeoutMs: 30_000 } });
    expect(book.settingsFor('browser', 'abp_text_reverse').mode).toBe('file');
    for (const tool of ['abp_connect', 'abp_disconnect', 'abp_status'])
      expect(book.settingsFor('browser', tool).mode).toBe('passthrough');
    expect(book.settingsFor('other', 'abp_call').mode).toBe('auto');
  });

  test("a user rule or the server's own pipeline block overrides it", () => {
    expect(book.settingsFor('browser', 'abp_export_pdf').mode).toBe('auto');
    expect(book.settingsFor('custom', 'abp_call').mode).toBe('auto');
    expect(book.settingsFor('custom', 'abp_status').mode).toBe('auto');
  });
});

describe('ABP_OUTPUT_DIR', () => {
  const withAbp = parse(yaml('servers:', '  browser: {type: abp}'));
  const withoutAbp = parse(yaml('servers:', '  x: {command: y}'));

  test('is the artifact directory when an abp server runs and nothing else names one', () => {
    expect(storeOptions(withAbp, { ABP_OUTPUT_DIR: 'abp-out' }).dir).toBe(resolve('abp-out'));
    expect(storeOptions(withAbp, { ABP_OUTPUT_DIR: 'abp-out', MCP_OFFLOAD_ARTIFACT_DIR: '/mcp' }).dir).toBe('/mcp');
    expect(
      storeOptions(
        { ...withAbp, artifacts: { ...withAbp.artifacts, dir: '/configured' } },
        { ABP_OUTPUT_DIR: 'abp-out' },
      ).dir,
    ).toBe('/configured');
    expect(storeOptions(withoutAbp, { ABP_OUTPUT_DIR: 'abp-out' }).dir).not.toBe(resolve('abp-out'));
  });
});
