import type { PipelinePatch, RuleConfig } from './pipeline.js';
import type { AbpOptions } from './abp.js';

/**
 * The validated, normalized configuration every other module reads.
 * The YAML shape (with aliases such as `mcpServers`) lives in config/schema.json;
 * src/config/load.ts turns a document of that shape into these types.
 */

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/**
 * Whether every client of the gateway gets a connection of its own to a command server (`session`) or they share
 * one (`shared`). Unset: shared until the server asks a client something (roots, sampling, elicitation).
 */
export type Isolation = 'session' | 'shared';

/** What a call does when its upstream is down and being restarted. */
export type WhenDown = 'error' | 'wait';

export interface ToolFilter {
  /** Glob patterns on the upstream's own tool names; empty means all. */
  allow: string[];
  deny: string[];
}

export interface RestartPolicy {
  /** Give up after this many consecutive failed restarts; 0 means never give up. */
  maxRetries: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

interface ServerCommon {
  name: string;
  /** The name is a stand-in (nothing in the command line named the server): its serverInfo.name replaces it. */
  nameFromServerInfo?: boolean;
  enabled: boolean;
  /** Per-request timeout; reset whenever the upstream reports progress. */
  timeoutMs: number;
  tools: ToolFilter;
  /**
   * Prefix for tool and prompt names. `undefined`: the default (the server name when there are
   * several upstreams, none when there is one); `null`: never prefix; a string: always prefix.
   */
  prefix: string | null | undefined;
  whenDown: WhenDown;
  restart: RestartPolicy;
  /** Where in the config file this server was defined, for messages. */
  source?: SourceLocation;
  /** Result pipeline settings for every tool of this server (a per-server rule). */
  pipeline?: PipelinePatch;
  /** Which protocol era to speak to the server (see UpstreamProtocol); absent, `auto`. */
  protocol?: UpstreamProtocol;
  /** How long a stdio server has to answer the `server/discover` probe before it is taken for a legacy one. */
  probeTimeoutMs?: number;
}

/**
 * `auto`: probe with `server/discover` and speak 2026-07-28 to a server that answers it, the legacy era
 * (`initialize`) to one that does not; `legacy`: no probe, `initialize` as before the modern era; `modern`:
 * 2026-07-28 or nothing.
 */
export type UpstreamProtocol = 'auto' | 'legacy' | 'modern';

export interface StdioServerConfig extends ServerCommon {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Unset: decided by what the server does (see Isolation). */
  isolation?: Isolation;
  /** How long the process has to exit once its stdin is closed before it is signaled (ProcessTransport.close). */
  exitGraceMs?: number;
}

export type HttpTransportKind = 'auto' | 'streamable-http' | 'sse';

export interface HttpServerConfig extends ServerCommon {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
  transport: HttpTransportKind;
  /** Log in with OAuth (`oauth:` in the file); absent: no OAuth until the server asks for it (upstreams/oauth/). */
  oauth?: OAuthSettings;
}

/** `servers.<name>.oauth`: how the proxy logs in to a remote server (src/upstreams/oauth/). */
export interface OAuthSettings {
  clientId?: string;
  clientSecret?: string;
  /** Client ID Metadata Document: an https URL that is the client id where the server supports it. */
  clientMetadataUrl?: string;
  clientName?: string;
  scopes?: string[];
  /** Absolute; default: under $XDG_CONFIG_HOME/mcp-offload/oauth/ (see upstreams/oauth/token-file.ts). */
  tokenFile?: string;
  callbackPort?: number;
  loginTimeoutMs?: number;
}

/** The built-in ABP browser backend (src/upstreams/abp/), an in-process MCP server. */
export interface AbpServerConfig extends ServerCommon {
  kind: 'abp';
  abp: AbpOptions;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig | AbpServerConfig;

export interface HttpListenConfig {
  host: string;
  port: number;
}

/** How the HTTP gateway treats requests, whether it listens because of the file or of --http. */
export interface HttpRequestOptions {
  maxBodyBytes: number;
  /** Host names accepted on top of the defaults (see src/http/host-check.ts); "*" accepts any. */
  allowedHosts: string[];
  allowedOrigins: string[];
  /** Where Streamable HTTP keeps sent messages for clients that reconnect; none: no resumption. */
  eventStore: 'memory' | 'none';
  /** The SSE `retry:` sent with each stream's priming event: how long a client waits to reconnect. */
  retryMs: number;
  /**
   * How long a 2025 session's call may go unanswered before its response becomes an SSE stream (http/answer.ts): a
   * call answered sooner is sent as one JSON body; a longer one gets the stream and its priming event, so that a
   * client cut off can resume it, whose cost to the client is then a fraction of a percent. 0: a stream at once.
   */
  streamAfterMs: number;
  /** The memory event store's bounds. */
  eventStoreLimits: MemoryEventStoreLimits;
  /** A Streamable HTTP session with nothing open that its client has not used for this long is ended; 0: never. */
  sessionIdleMs: number;
  /** Sessions (Streamable HTTP and SSE) one token or OAuth subject may hold open on one replica; 0: no cap. */
  maxSessionsPerPrincipal: number;
  /** With redis: where the other replicas reach this one (scheme://host:port); default: the listened address. */
  advertiseUrl?: string;
}

/**
 * The YAML `tracing` section as written (src/tracing/settings.ts merges it with the OTEL_* variables, which win).
 * Absent: tracing is on only when those variables ask for it.
 */
export interface TracingOptions {
  exporter?: 'otlp' | 'none';
  endpoint?: string;
  protocol?: 'http/protobuf' | 'http/json';
  headers?: Record<string, string>;
  serviceName?: string;
  sampler?: string;
  samplerArg?: number;
}

/** Shared state of several replicas (src/shared/); absent, every replica keeps its own. */
export interface RedisOptions {
  url: string;
  /** Prefix of every key and channel. */
  keyPrefix: string;
  /** How often a replica renews its presence; three missed heartbeats and it is gone. */
  heartbeatMs: number;
  /** How long a stream's events outlive its last event. */
  eventTtlSeconds: number;
  /** How long a legacy session's record outlives its last request. */
  sessionTtlSeconds: number;
}

export interface AuthToken {
  name: string;
  token: string;
}

export interface AuthOptions {
  tokens: AuthToken[];
  allowUnauthenticated: boolean;
  /**
   * Who sees an artifact over HTTP: every session of the authenticated principal (a token's name or an OAuth
   * subject; `token` is the older name of the same), or only the session that produced it. Without authentication
   * there is no principal, and each session owns its own.
   */
  artifactScope: 'principal' | 'session' | 'token';
  publicMetrics: boolean;
  /** JWT access tokens of an OAuth authorization server, beside the static tokens (src/http/oauth/). */
  oauth?: OAuthResourceOptions;
}

/** `auth.oauth`: the gateway as an OAuth 2.1 protected resource. Absent keys take the defaults in src/http/oauth/. */
export interface OAuthResourceOptions {
  issuer: string;
  /** What `aud` must contain; default: the resource URL. */
  audience?: string;
  /** The canonical URL of /mcp; default: from artifacts.publicUrl, http.advertiseUrl or the listen address. */
  resource?: string;
  /** Default: the issuer metadata's jwks_uri. */
  jwksUri?: string;
  requiredScopes?: string[];
  scopesSupported?: string[];
  algorithms?: string[];
  clockToleranceSeconds?: number;
}

export interface LinkOptions {
  ttlSeconds: number;
  signingKey?: string;
  /** Name the gateway-side path in summaries served over HTTP too. */
  showPath: boolean;
  /** `presigned`: links are presigned GET URLs of the bucket (backend s3), not links to this gateway. */
  via: 'gateway' | 'presigned';
}

/** `artifacts.s3` as written; normalized into the store's S3StoreOptions. */
export interface S3Doc {
  bucket: string;
  prefix?: string;
  region?: string;
  endpoint?: string;
  publicEndpoint?: string;
  forcePathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  partSizeBytes?: number;
  uploadConcurrency?: number;
  timeoutMs?: number;
}

/**
 * How the catalog's tools are shown: all of them (`all`), three meta-tools to search and call them (`search`), or
 * per client (`auto`).
 */
export type Disclosure = 'all' | 'search' | 'auto';

export interface GatewayOptions {
  /** Progressive tool disclosure (src/relay/interceptors/disclosure.ts). */
  disclosure: Disclosure;
  /** `auto`: a client is shown the meta-tools when the tools it would be listed cost more tokens than this. */
  disclosureBudget: number;
  /** Separator between prefix and name: `<prefix><separator><name>`. */
  separator: string;
  /** Page size of the lists the proxy serves downstream. */
  pageSize: number;
  /** How long startup waits for upstreams before serving what is up. */
  startupTimeoutMs: number;
  /** On SIGTERM, how long calls in flight may take before everything is closed. */
  shutdownGraceMs: number;
  /**
   * How long a legacy server's call waits for a 2026-07-28 client to come back with the input the server asked for
   * (an input_required result) before it is cancelled.
   */
  inputHoldMs: number;
}

export interface ArtifactOptions {
  /** Default: MCP_OFFLOAD_ARTIFACT_DIR, else a per-user directory under the OS temp dir. */
  dir?: string;
  /** `s3`: artifacts in the bucket `s3` names, shared by replicas; `local`: files in `dir`. */
  backend: 'local' | 's3';
  s3?: S3StoreOptions;
  maxArtifactBytes: number;
  /** 0 = no quota. */
  quotaBytes: number;
  /** 0 = keep forever. */
  ttlHours: number;
  /** List and read a session's artifacts as MCP resources. */
  resources: boolean;
  tools: { enabled: boolean; listName: string; readName: string; readLimit: number };
  viewer: ViewerOptions;
  /** External base URL for download links (behind a reverse proxy). */
  publicUrl?: string;
  links: LinkOptions;
}

/** The proxy's artifact viewer: an MCP App that hosts of MCP Apps show (docs/mcp-apps.md). */
export interface ViewerOptions {
  /** Offer `artifact_view` and its view (`ui://mcp-offload/artifact-viewer`) to hosts of MCP Apps. */
  enabled: boolean;
  /** The name of the tool that shows an artifact in the viewer. */
  toolName: string;
  /** `<server>/<tool>` globs: upstream tools without a view of their own whose results open in the viewer. */
  linkTools: string[];
}

export interface Config {
  /** Absolute path of the file this came from, if any. */
  file?: string;
  logLevel: LogLevel;
  http?: HttpListenConfig;
  httpOptions: HttpRequestOptions;
  auth: AuthOptions;
  redis?: RedisOptions;
  tracing?: TracingOptions;
  gateway: GatewayOptions;
  artifacts: ArtifactOptions;
  /** Global defaults of the result pipeline. */
  pipeline: PipelinePatch;
  rules: RuleConfig[];
  servers: ServerConfig[];
}

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/** One problem found in a config file. `line`/`column` are 1-based. */
export interface ConfigProblem {
  file: string;
  line: number;
  column: number;
  /** JSON pointer into the document, e.g. `/servers/github/command`. */
  path: string;
  message: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
  }
}

/** A config file that cannot be read at all: one line says which and why (there is no line of it to point at). */
export class UnreadableConfigError extends ConfigError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super([{ file: path, line: 1, column: 1, path: '', message: `cannot read config file: ${reason}` }]);
    this.name = 'UnreadableConfigError';
  }
}

export function formatProblem(p: ConfigProblem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.message}`;
}

/** Limits of the in-memory event store (src/http/memory-event-store.ts). */
export interface MemoryEventStoreLimits {
  /** The stored messages' total size (their JSON length, estimated, plus EVENT_OVERHEAD_BYTES each). */
  maxBytes: number;
  /** Events kept per stream; a chatty call (progress) loses its oldest first. */
  maxEventsPerStream: number;
  /** How long a stream is kept after its response, for a client that lost it on the way. */
  keepAnsweredMs: number;
}

export const DEFAULT_EVENT_STORE_LIMITS: MemoryEventStoreLimits = {
  maxBytes: 64 * 1024 * 1024,
  maxEventsPerStream: 1000,
  keepAnsweredMs: 5 * 60_000,
};

export const DEFAULTS = {
  logLevel: 'info' as LogLevel,
  timeoutMs: 60_000,
  whenDown: 'error' as WhenDown,
  restart: { maxRetries: 0, initialDelayMs: 500, maxDelayMs: 30_000 } as RestartPolicy,
  gateway: {
    disclosure: 'all',
    disclosureBudget: 10_000,
    separator: '__',
    pageSize: 100,
    startupTimeoutMs: 30_000,
    shutdownGraceMs: 10_000,
    inputHoldMs: 600_000,
  } as GatewayOptions,
  artifacts: {
    maxArtifactBytes: 512 * 1024 * 1024,
    quotaBytes: 4 * 1024 * 1024 * 1024,
    ttlHours: 24 * 7,
    resources: true,
    tools: { enabled: true, listName: 'artifact_list', readName: 'artifact_read', readLimit: 20_000 },
    viewer: { enabled: true, toolName: 'artifact_view', linkTools: [] },
    backend: 'local',
    links: { ttlSeconds: 3600, showPath: false, via: 'gateway' },
  } as ArtifactOptions,
  httpOptions: {
    maxBodyBytes: 256 * 1024 * 1024,
    allowedHosts: [],
    allowedOrigins: [],
    eventStore: 'memory',
    retryMs: 1000,
    streamAfterMs: 50,
    eventStoreLimits: { ...DEFAULT_EVENT_STORE_LIMITS },
    sessionIdleMs: 30 * 60_000,
    maxSessionsPerPrincipal: 100,
  } as HttpRequestOptions,
  auth: { tokens: [], allowUnauthenticated: false, artifactScope: 'principal', publicMetrics: false } as AuthOptions,
  redis: { keyPrefix: 'mcp-offload:', heartbeatMs: 5000, eventTtlSeconds: 1800, sessionTtlSeconds: 86_400 },
  /** Listen address when `http:` is given without a host: this machine only. */
  http: { host: '127.0.0.1' },
};

/** What a server gets when nothing is configured: shared by the file loader's callers and the one-server CLI. */
export function defaultServerSettings(): Pick<
  ServerConfig,
  'enabled' | 'timeoutMs' | 'tools' | 'prefix' | 'whenDown' | 'restart'
> {
  return {
    enabled: true,
    timeoutMs: DEFAULTS.timeoutMs,
    tools: { allow: [], deny: [] },
    prefix: undefined,
    whenDown: DEFAULTS.whenDown,
    restart: { ...DEFAULTS.restart },
  };
}

/** A config with every top-level default and the given servers. */
export function defaultConfig(servers: ServerConfig[] = []): Config {
  return {
    logLevel: DEFAULTS.logLevel,
    httpOptions: {
      ...DEFAULTS.httpOptions,
      allowedHosts: [],
      allowedOrigins: [],
      eventStoreLimits: { ...DEFAULTS.httpOptions.eventStoreLimits },
    },
    auth: { ...DEFAULTS.auth, tokens: [] },
    gateway: { ...DEFAULTS.gateway },
    artifacts: {
      ...DEFAULTS.artifacts,
      tools: { ...DEFAULTS.artifacts.tools },
      viewer: { ...DEFAULTS.artifacts.viewer, linkTools: [] },
      links: { ...DEFAULTS.artifacts.links },
    },
    pipeline: {},
    rules: [],
    servers,
  };
}

/** `artifacts.s3` after normalization (see docs/s3-and-replicas.md). */
export interface S3StoreOptions {
  bucket: string;
  /** Key prefix, `''` or ending in `/`. */
  prefix: string;
  region: string;
  /** For S3-compatible services (R2, MinIO, SeaweedFS, Garage, Ceph RGW); AWS when absent. */
  endpoint?: string;
  /** The endpoint presigned URLs name, when clients reach the service under another name. */
  publicEndpoint?: string;
  forcePathStyle: boolean;
  /** Both or neither; neither: the AWS default credential chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** Multipart part size in bytes (at least 5 MiB, S3's minimum). */
  partSizeBytes: number;
  /** Parts uploaded at once: memory per upload is about partSizeBytes × this. */
  uploadConcurrency: number;
  /** A request's limit to connect, and to go without a byte once connected (each of its 3 attempts). */
  timeoutMs: number;
}
