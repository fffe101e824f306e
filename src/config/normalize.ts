/**
 * Valid document data → `Config`: defaults applied (built-in, then the `defaults:` block, then the
 * server's own keys), aliases resolved, servers listed in document order. Runs only after every
 * check has passed, so the shapes here are trusted.
 */
import { serverMapKey } from './checks.js';
import { joinPointer } from './pointer.js';
import {
  DEFAULTS,
  type Config,
  type HttpTransportKind,
  type LogLevel,
  type ArtifactOptions,
  type AuthOptions,
  type HttpRequestOptions,
  type LinkOptions,
  type RedisOptions,
  type TracingOptions,
  type RestartPolicy,
  type S3Doc,
  type ServerConfig,
  type Isolation,
  type WhenDown,
  type UpstreamProtocol,
  type OAuthSettings,
} from './types.js';
import type { NodeInfo } from './yaml-tree.js';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { PipelinePatch, RuleConfig } from './pipeline.js';
import type { GatewayOptions, S3StoreOptions } from './types.js';
import { abpRequestTimeoutMs, resolveAbpOptions, type AbpOptionsDoc } from './abp.js';

/* The document's shape after validation; see config/schema.json. */
interface ServerDoc {
  type?: 'stdio' | 'http' | 'streamable-http' | 'sse' | 'abp';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  isolation?: Isolation;
  url?: string;
  headers?: Record<string, string>;
  transport?: HttpTransportKind;
  oauth?: boolean | OAuthSettings;
  enabled?: boolean;
  disabled?: boolean;
  timeoutMs?: number;
  tools?: { allow?: string[]; deny?: string[] };
  prefix?: string | false | null;
  whenDown?: WhenDown;
  restart?: Partial<RestartPolicy>;
  pipeline?: PipelinePatch;
  abp?: AbpOptionsDoc;
  protocol?: UpstreamProtocol;
  probeTimeoutMs?: number;
  exitGraceMs?: number;
}

interface DefaultsDoc {
  enabled?: boolean;
  timeoutMs?: number;
  whenDown?: WhenDown;
  restart?: Partial<RestartPolicy>;
}

export interface ConfigDoc {
  servers?: Record<string, ServerDoc> | null;
  mcpServers?: Record<string, ServerDoc> | null;
  defaults?: DefaultsDoc;
  logLevel?: LogLevel;
  http?: { host?: string; port?: number } & Partial<Omit<HttpRequestOptions, 'eventStoreLimits'>> & {
      eventStoreLimits?: Partial<HttpRequestOptions['eventStoreLimits']>;
    };
  auth?: Partial<AuthOptions>;
  redis?: Partial<RedisOptions> & { url: string };
  tracing?: TracingOptions;
  gateway?: {
    disclosure?: GatewayOptions['disclosure'];
    disclosureBudget?: number;
    separator?: string;
    pageSize?: number;
    startupTimeoutMs?: number;
    shutdownGraceMs?: number;
    inputHoldMs?: number;
  };
  artifacts?: Partial<Omit<ArtifactOptions, 'tools' | 'viewer' | 'links' | 's3'>> & {
    s3?: S3Doc;
    tools?: Partial<ArtifactOptions['tools']>;
    viewer?: Partial<ArtifactOptions['viewer']>;
    links?: Partial<LinkOptions>;
  };
  pipeline?: PipelinePatch;
  rules?: (PipelinePatch & { server?: string; tool?: string })[];
}

export function normalizeConfig(
  doc: ConfigDoc,
  file: string,
  nodes: Map<string, NodeInfo>,
  env: NodeJS.ProcessEnv = process.env,
): Config {
  const mapKey = serverMapKey(doc as Record<string, unknown>);
  const serverDocs = doc[mapKey] ?? {};
  const servers = Object.keys(serverDocs).map((name) => {
    const info = nodes.get(joinPointer(`/${mapKey}`, name));
    const position = info?.key ?? info?.value ?? { line: 1, column: 1 };
    return {
      order: [position.line, position.column] as const,
      server: normalizeServer(name, serverDocs[name]!, doc.defaults ?? {}, { file, ...position }, env),
    };
  });
  // Object key order puts integer-like names ("1", "42") first; the file's order is what users expect.
  servers.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);

  const config: Config = {
    logLevel: doc.logLevel ?? DEFAULTS.logLevel,
    httpOptions: normalizeHttpOptions(doc.http),
    auth: { ...DEFAULTS.auth, ...doc.auth, tokens: (doc.auth?.tokens ?? []).map((t) => ({ ...t })) },
    gateway: { ...DEFAULTS.gateway, ...doc.gateway },
    artifacts: normalizeArtifacts(doc.artifacts, env),
    pipeline: resolveTransform(doc.pipeline ?? {}, file),
    rules: (doc.rules ?? []).map((rule, index) => normalizeRule(rule, file, nodes.get(`/rules/${index}`)?.value?.line)),
    servers: servers.map((s) => s.server),
  };
  if (doc.redis) config.redis = { ...DEFAULTS.redis, ...doc.redis };
  // Kept as written: the OTEL_* variables, read when tracing starts, fill in and win (src/tracing/settings.ts).
  if (doc.tracing)
    config.tracing = { ...doc.tracing, ...(doc.tracing.headers ? { headers: { ...doc.tracing.headers } } : {}) };
  for (const server of config.servers) if (server.pipeline) server.pipeline = resolveTransform(server.pipeline, file);
  if (doc.http?.port !== undefined) config.http = { host: doc.http.host ?? DEFAULTS.http.host, port: doc.http.port };
  return config;
}

function normalizeServer(
  name: string,
  doc: ServerDoc,
  defaults: DefaultsDoc,
  source: ServerConfig['source'],
  env: NodeJS.ProcessEnv,
): ServerConfig {
  const restart: RestartPolicy = { ...DEFAULTS.restart, ...defaults.restart, ...doc.restart };
  restart.maxDelayMs = Math.max(restart.maxDelayMs, restart.initialDelayMs);
  const common = {
    name,
    enabled: doc.enabled ?? (doc.disabled !== undefined ? !doc.disabled : (defaults.enabled ?? true)),
    timeoutMs: doc.timeoutMs ?? defaults.timeoutMs ?? DEFAULTS.timeoutMs,
    tools: { allow: [...(doc.tools?.allow ?? [])], deny: [...(doc.tools?.deny ?? [])] },
    prefix: normalizePrefix(doc),
    whenDown: doc.whenDown ?? defaults.whenDown ?? DEFAULTS.whenDown,
    restart,
    source,
    ...(doc.pipeline !== undefined ? { pipeline: doc.pipeline } : {}),
    ...(doc.protocol !== undefined ? { protocol: doc.protocol } : {}),
    ...(doc.probeTimeoutMs !== undefined ? { probeTimeoutMs: doc.probeTimeoutMs } : {}),
  };
  if (doc.type === 'abp') {
    const abp = resolveAbpOptions(doc.abp, env);
    // Without a timeout of its own, the proxy's clock leaves room for every retry and for a connect.
    return { kind: 'abp', ...common, timeoutMs: doc.timeoutMs ?? defaults.timeoutMs ?? abpRequestTimeoutMs(abp), abp };
  }
  if (doc.command !== undefined) {
    return {
      kind: 'stdio',
      ...common,
      command: doc.command,
      args: [...(doc.args ?? [])],
      env: Object.fromEntries(Object.entries(doc.env ?? {})),
      ...(doc.cwd !== undefined ? { cwd: doc.cwd } : {}),
      ...(doc.isolation !== undefined ? { isolation: doc.isolation } : {}),
      ...(doc.exitGraceMs !== undefined ? { exitGraceMs: doc.exitGraceMs } : {}),
    };
  }
  return {
    kind: 'http',
    ...common,
    url: doc.url!,
    headers: Object.fromEntries(Object.entries(doc.headers ?? {})),
    transport: doc.transport ?? transportOfType(doc.type),
    ...normalizeOAuth(doc.oauth, source?.file),
  };
}

/** `oauth: true` is every default; false is none; a token file is relative to the config file. */
function normalizeOAuth(oauth: ServerDoc['oauth'], file: string | undefined): { oauth?: OAuthSettings } {
  if (oauth === undefined || oauth === false) return {};
  const settings: OAuthSettings = oauth === true ? {} : { ...oauth };
  if (settings.scopes) settings.scopes = [...settings.scopes];
  if (settings.tokenFile !== undefined && !isAbsolute(settings.tokenFile))
    settings.tokenFile = resolve(file ? dirname(file) : process.cwd(), settings.tokenFile);
  return { oauth: settings };
}

/** Absent: the gateway decides; false, null or "": never prefix; otherwise that prefix. */
function normalizePrefix(doc: ServerDoc): string | null | undefined {
  if (!Object.prototype.hasOwnProperty.call(doc, 'prefix')) return undefined;
  return doc.prefix === false || doc.prefix === null || doc.prefix === '' || doc.prefix === undefined
    ? null
    : doc.prefix;
}

function transportOfType(type: ServerDoc['type']): HttpTransportKind {
  if (type === 'http' || type === 'streamable-http') return 'streamable-http';
  if (type === 'sse') return 'sse';
  return 'auto';
}

function normalizeArtifacts(doc: ConfigDoc['artifacts'], env: NodeJS.ProcessEnv): ArtifactOptions {
  const { tools, viewer, links, s3, ...rest } = doc ?? {};
  const artifacts: ArtifactOptions = {
    ...DEFAULTS.artifacts,
    ...rest,
    tools: { ...DEFAULTS.artifacts.tools, ...tools },
    viewer: { ...DEFAULTS.artifacts.viewer, ...viewer, linkTools: [...(viewer?.linkTools ?? [])] },
    links: { ...DEFAULTS.artifacts.links, ...links },
  };
  // The bucket settings count only with backend s3, so switching back to local is one line.
  if (artifacts.backend === 's3' && s3) artifacts.s3 = normalizeS3(s3, env);
  // Links are built by appending paths; one trailing slash would double them.
  if (artifacts.publicUrl) artifacts.publicUrl = artifacts.publicUrl.replace(/\/+$/, '');
  return artifacts;
}

/**
 * The AWS SDK waits for an S3 response without limit: a service that accepts a request and never answers would hold
 * a store, a read or a list for good (and resources/list, which waits for a replica's first reading of the bucket).
 */
const DEFAULT_S3_TIMEOUT_MS = 30_000;

function normalizeS3(doc: S3Doc, env: NodeJS.ProcessEnv): S3StoreOptions {
  const prefix = (doc.prefix ?? '').replace(/^\/+/, '');
  return {
    bucket: doc.bucket,
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    region: doc.region ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1'),
    ...(doc.endpoint ? { endpoint: doc.endpoint.replace(/\/+$/, '') } : {}),
    ...(doc.publicEndpoint ? { publicEndpoint: doc.publicEndpoint.replace(/\/+$/, '') } : {}),
    // Self-hosted services rarely have wildcard DNS for virtual-hosted buckets; AWS wants virtual hosts.
    forcePathStyle: doc.forcePathStyle ?? doc.endpoint !== undefined,
    ...(doc.accessKeyId ? { accessKeyId: doc.accessKeyId } : {}),
    ...(doc.secretAccessKey ? { secretAccessKey: doc.secretAccessKey } : {}),
    ...(doc.sessionToken ? { sessionToken: doc.sessionToken } : {}),
    partSizeBytes: doc.partSizeBytes ?? 8 * 1024 * 1024,
    uploadConcurrency: doc.uploadConcurrency ?? 4,
    timeoutMs: doc.timeoutMs ?? DEFAULT_S3_TIMEOUT_MS,
  };
}

function normalizeHttpOptions(doc: ConfigDoc['http']): HttpRequestOptions {
  return {
    maxBodyBytes: doc?.maxBodyBytes ?? DEFAULTS.httpOptions.maxBodyBytes,
    allowedHosts: [...(doc?.allowedHosts ?? [])],
    allowedOrigins: [...(doc?.allowedOrigins ?? [])],
    eventStore: doc?.eventStore ?? DEFAULTS.httpOptions.eventStore,
    retryMs: doc?.retryMs ?? DEFAULTS.httpOptions.retryMs,
    streamAfterMs: doc?.streamAfterMs ?? DEFAULTS.httpOptions.streamAfterMs,
    eventStoreLimits: { ...DEFAULTS.httpOptions.eventStoreLimits, ...doc?.eventStoreLimits },
    sessionIdleMs: doc?.sessionIdleMs ?? DEFAULTS.httpOptions.sessionIdleMs,
    maxSessionsPerPrincipal: doc?.maxSessionsPerPrincipal ?? DEFAULTS.httpOptions.maxSessionsPerPrincipal,
    ...(doc?.advertiseUrl ? { advertiseUrl: doc.advertiseUrl.replace(/\/+$/, '') } : {}),
  };
}

function normalizeRule(rule: NonNullable<ConfigDoc['rules']>[number], file: string, line?: number): RuleConfig {
  const { server, tool, ...settings } = rule;
  return {
    server: server ?? '*',
    ...(tool !== undefined ? { tool } : {}),
    settings: resolveTransform(settings, file),
    ...(line !== undefined ? { line } : {}),
  };
}

/** A transform module's path is relative to the config file that names it. */
function resolveTransform(patch: PipelinePatch, file: string): PipelinePatch {
  if (patch.transform === undefined || isAbsolute(patch.transform)) return patch;
  return { ...patch, transform: resolve(dirname(file), patch.transform) };
}
