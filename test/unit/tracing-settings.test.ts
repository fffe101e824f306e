// Whether tracing is on and how: the YAML `tracing` section (validated, errors at file:line) and the OTEL_*
// variables, which win. Off unless asked for.
import { parseConfig } from '../../src/config/load.js';
import { ConfigError, type Config } from '../../src/config/types.js';
import { tracingSettings } from '../../src/tracing/settings.js';

const yaml = (...lines: string[]): string => `${['servers:', '  s: {command: node}', ...lines].join('\n')}\n`;
const parse = (text: string): Config => parseConfig(text, 'test.yaml', {});

function problems(text: string): string[] {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function settings(tracing: Config['tracing'], env: NodeJS.ProcessEnv = {}) {
  const warnings: string[] = [];
  return { settings: tracingSettings(tracing, env, (w) => warnings.push(w)), warnings };
}

describe('tracing: the YAML section', () => {
  test('absent: no tracing key', () => {
    expect(parse(yaml()).tracing).toBeUndefined();
  });

  test('every key, ${VAR} in headers', () => {
    const config = parseConfig(
      yaml(
        'tracing:',
        '  endpoint: http://collector:4318/',
        '  protocol: http/json',
        '  headers: {x-api-key: "${KEY}"}',
        '  serviceName: gateway-a',
        '  sampler: parentbased_traceidratio',
        '  samplerArg: 0.25',
      ),
      'test.yaml',
      { KEY: 'k1' },
    );
    expect(config.tracing).toEqual({
      endpoint: 'http://collector:4318/',
      protocol: 'http/json',
      headers: { 'x-api-key': 'k1' },
      serviceName: 'gateway-a',
      sampler: 'parentbased_traceidratio',
      samplerArg: 0.25,
    });
  });

  test('mistakes are named at their line', () => {
    expect(problems(yaml('tracing:', '  protocol: grpc', '  samplerArg: 2', '  exporter: console'))).toEqual([
      expect.stringMatching(/^4:13 "protocol" must be one of http\/protobuf, http\/json/),
      expect.stringMatching(/^5:15 .*samplerArg.*1/),
      expect.stringMatching(/^6:13 "exporter" must be one of otlp, none/),
    ]);
    expect(problems(yaml('tracing:', '  endpoint: collector:4318'))[0]).toMatch(/^4:13 /);
    // cspell:disable-next-line -- the misspelling is the point
    expect(problems(yaml('tracing:', '  sampeler: always_on'))[0]).toMatch(/^4:3 .*sampeler/);
  });
});

describe('tracing: on or off', () => {
  test('off with neither the YAML nor a variable asking', () => {
    expect(settings(undefined).settings).toBeUndefined();
    expect(settings(undefined, { OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).settings).toBeUndefined();
  });

  test('on with the YAML section; its endpoint gets /v1/traces, its defaults are the specification s', () => {
    expect(settings({ endpoint: 'http://c:4318/' }).settings).toEqual({
      protocol: 'http/protobuf',
      url: 'http://c:4318/v1/traces',
      serviceName: 'mcp-offload',
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
    expect(settings({ exporter: 'none', endpoint: 'http://c:4318' }).settings).toBeUndefined();
  });

  test('on with OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER=otlp alone; the SDK reads the endpoint itself', () => {
    expect(settings(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).settings).toEqual({
      protocol: 'http/protobuf',
      serviceName: 'mcp-offload',
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
    expect(settings(undefined, { OTEL_TRACES_EXPORTER: 'otlp' }).settings).toBeDefined();
  });

  test('the variables win over the YAML', () => {
    const { settings: s } = settings(
      { endpoint: 'http://yaml:4318', protocol: 'http/json', headers: { a: 'b' }, sampler: 'always_on' },
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://env:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_HEADERS: 'c=d',
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.5',
      },
    );
    // No url and no headers: the exporter takes the variables' own.
    expect(s).toEqual({ protocol: 'http/protobuf', serviceName: 'mcp-offload', sampler: 'traceidratio', ratio: 0.5 });
    expect(settings({ endpoint: 'http://c' }, { OTEL_TRACES_EXPORTER: 'none' }).settings).toBeUndefined();
    expect(settings({ endpoint: 'http://c' }, { OTEL_SDK_DISABLED: 'true' }).settings).toBeUndefined();
  });

  test('what cannot be followed is warned of: console (stdout is the protocol), grpc, a bad sampler', () => {
    const consoled = settings(undefined, { OTEL_TRACES_EXPORTER: 'console' });
    expect(consoled.settings).toBeUndefined();
    expect(consoled.warnings).toEqual([expect.stringContaining('stdout is the MCP protocol channel')]);
    const grpc = settings({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(grpc.settings).toBeUndefined();
    expect(grpc.warnings).toEqual([expect.stringContaining('grpc is not supported')]);
    const sampler = settings({}, { OTEL_TRACES_SAMPLER: 'jaeger_remote', OTEL_TRACES_SAMPLER_ARG: 'lots' });
    expect(sampler.settings).toMatchObject({ sampler: 'parentbased_always_on', ratio: 1 });
    expect(sampler.warnings).toHaveLength(2);
  });
});
