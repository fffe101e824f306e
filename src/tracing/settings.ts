import type { TracingOptions } from '../config/types.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** The samplers OTEL_TRACES_SAMPLER names that the SDK has (sampler.ts builds them). */
export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/**
 * How tracing runs. The OTLP exporter reads OTEL_EXPORTER_OTLP_* itself (endpoint, headers, timeout, compression,
 * certificates) and the resource detector OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: what the YAML says of
 * those is kept here only where no variable says it, and handed to the SDK as its fallback.
 */
export interface TracingSettings {
  protocol: OtlpProtocol;
  /** The exporter's URL (the YAML endpoint with /v1/traces), when no OTEL_EXPORTER_OTLP_*ENDPOINT is set. */
  url?: string;
  headers?: Record<string, string>;
  /** service.name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names one. */
  serviceName: string;
  sampler: SamplerName;
  /** The traceidratio samplers' ratio. */
  ratio: number;
}

const DEFAULT_SERVICE_NAME = 'mcp-offload';

/** A variable as the SDK reads it (core's getStringFromEnv): trimmed, and empty is unset. */
function variable(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * Whether tracing is on, and how, from the YAML `tracing` section and the OTEL_* variables (which win). Off when
 * OTEL_SDK_DISABLED is true, when the exporter is none, or when neither the YAML nor a variable asks for traces.
 * `warn` hears what is set but cannot be followed.
 */
export function tracingSettings(
  options: TracingOptions | undefined,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): TracingSettings | undefined {
  if (variable(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const endpointVariable =
    variable(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? variable(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const exporters = variable(env, 'OTEL_TRACES_EXPORTER')
    ?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  // Asked for at all: the YAML section, an exporter variable, or an endpoint to send to.
  const wanted = exporters ?? [options ? (options.exporter ?? 'otlp') : endpointVariable ? 'otlp' : 'none'];
  for (const name of wanted.filter((n) => n !== 'otlp' && n !== 'none'))
    warn(
      name === 'console'
        ? 'OTEL_TRACES_EXPORTER=console is not followed: stdout is the MCP protocol channel in stdio mode'
        : `OTEL_TRACES_EXPORTER=${name} is not followed: mcp-offload exports traces over OTLP/HTTP only`,
    );
  if (!wanted.includes('otlp')) return undefined;

  const protocol =
    variable(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    variable(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    options?.protocol ??
    'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    warn(`OTLP protocol ${protocol} is not supported (http/protobuf and http/json are): tracing is off`);
    return undefined;
  }
  const settings: TracingSettings = {
    protocol,
    serviceName: options?.serviceName ?? DEFAULT_SERVICE_NAME,
    ...sampler(options, env, warn),
  };
  if (!endpointVariable && options?.endpoint) settings.url = `${options.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const headersVariable =
    variable(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? variable(env, 'OTEL_EXPORTER_OTLP_HEADERS');
  if (!headersVariable && options?.headers) settings.headers = { ...options.headers };
  return settings;
}

/**
 * OTEL_TRACES_SAMPLER and its argument, as the specification reads them (an unknown name or a bad ratio is
 * warned of and the default taken). The SDK's TracerProvider takes a Sampler object, not these variables.
 */
function sampler(
  options: TracingOptions | undefined,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): Pick<TracingSettings, 'sampler' | 'ratio'> {
  let name = variable(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase() ?? options?.sampler ?? 'parentbased_always_on';
  if (!(SAMPLERS as readonly string[]).includes(name)) {
    warn(`OTEL_TRACES_SAMPLER=${name} is not known: using parentbased_always_on`);
    name = 'parentbased_always_on';
  }
  const raw = variable(env, 'OTEL_TRACES_SAMPLER_ARG');
  let ratio = options?.samplerArg ?? 1;
  if (raw !== undefined) {
    const parsed = Number(raw);
    if (Number.isFinite(parsed) && parsed >= 0 && parsed <= 1) ratio = parsed;
    else warn(`OTEL_TRACES_SAMPLER_ARG=${raw} is not a ratio from 0 to 1: using ${ratio}`);
  }
  return { sampler: name as SamplerName, ratio };
}
