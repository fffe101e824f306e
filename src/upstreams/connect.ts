import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/client';
import type { AbpServerConfig, HttpServerConfig, ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import {
  CLIENT_CAPABILITIES_KEY,
  CLIENT_INFO_KEY,
  PROTOCOL_VERSION_KEY,
  SERVER_INFO_KEY,
} from '../protocol/envelope.js';
import { Codes, ConnectionClosedError } from '../rpc/errors.js';
import { Peer, TimeoutError, type PeerHandlers } from '../rpc/peer.js';
import {
  FIRST_MODERN_PROTOCOL_VERSION,
  isLegacyVersion,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  type ProtocolEra,
} from '../protocol/versions.js';
import { ProcessWire } from '../transports/process.js';
import { Frame } from '../wire/frame.js';
import type { Wire } from '../wire/wire.js';
import type { ClientIdentity, EraChoice } from './client-identity.js';
import type { RemoteWire } from './remote.js';
import type { UpstreamLogin } from './oauth/upstream-login.js';

/**
 * How long a freshly started stdio server has to answer `server/discover`. Legacy servers that ignore requests
 * before `initialize` (the Python SDK's, among others) make every first connect wait this long, so it is short; a
 * modern server that starts slower than this answers late, is recognized by that answer and is started again in its
 * era (Upstream). The server's `probeTimeoutMs` overrides it.
 */
export const STDIO_PROBE_TIMEOUT_MS = 1000;

/** What an earlier connection found out about the server's era (era-verdicts.ts): no need to probe again. */
export type PriorEra = { kind: 'legacy' } | { kind: 'modern'; discover: DiscoverAnswer };

/** The era the connection is to find, and a verdict from an earlier connection that spares the probe. */
export interface EraPlan {
  era: EraChoice;
  prior?: PriorEra;
}

/** What a 2026-07-28 server said of itself in `server/discover`. */
export interface DiscoverAnswer {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
}

/** One open connection to a server, past its handshake. */
export interface Connection {
  wire: Wire;
  peer: Peer;
  era: ProtocolEra;
  /** The version agreed in `initialize`, or the modern revision spoken. */
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
  /** A modern server's `server/discover` answer (remembered to spare later connections the probe). */
  discover?: DiscoverAnswer;
  /**
   * A stdio probe that timed out and was answered later, as a modern server answers: the server started slower than
   * the probe waits (the connection spoke the legacy era to it meanwhile).
   */
  lateDiscover?: DiscoverAnswer;
  /** The server ended on the probe: taken for a legacy server (see Upstream). */
  probed: boolean;
}

/** A connection attempt failed during its handshake; `probed`: a `server/discover` probe had been sent. */
export class HandshakeError extends Error {
  constructor(
    message: string,
    readonly probed: boolean,
    readonly lateDiscover?: DiscoverAnswer,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HandshakeError';
  }
}

export interface ConnectOptions {
  config: ServerConfig;
  identity: ClientIdentity;
  plan: EraPlan;
  handlers: PeerHandlers;
  log: Logger;
  /** How long the whole handshake may take. */
  timeoutMs: number;
  login?: UpstreamLogin;
}

/**
 * Opens a connection to a server over the transport its config names and finds its era: as configured, from an
 * earlier verdict, or with a `server/discover` probe (a modern server answers it; anything else is a legacy server,
 * which is then initialized). For `auto` HTTP servers Streamable HTTP is tried first and legacy SSE second, as the
 * MCP spec recommends. The wire is closed again when the handshake fails.
 */
export async function connect(options: ConnectOptions): Promise<Connection> {
  const { config } = options;
  if (config.kind === 'stdio') {
    const wire = new ProcessWire({
      command: config.command,
      args: config.args,
      env: { ...stringEnv(process.env), ...config.env },
      cwd: config.cwd,
      log: options.log,
      ...(config.exitGraceMs !== undefined ? { killGraceMs: config.exitGraceMs } : {}),
    });
    await wire.start();
    const era = { probeTimeoutMs: STDIO_PROBE_TIMEOUT_MS, ...options.plan.era };
    return handshake(wire, { ...options, plan: { ...options.plan, era } });
  }
  if (config.kind === 'abp') return handshake(await abpWire(config, options.log), legacyOnly(options));
  if (config.transport === 'sse') return viaSse(config, options);
  try {
    return await handshake(await remoteWire(config, 'streamable', options.login), options);
  } catch (error) {
    if (options.login?.failure(error)) throw error;
    if (config.transport !== 'auto' || options.plan.era.protocol === 'modern') throw error;
    options.log.info({ err: String(error) }, 'Streamable HTTP failed; trying legacy SSE');
    try {
      return await viaSse(config, options);
    } catch (sseError) {
      throw new Error(
        `could not connect to ${config.url}: Streamable HTTP failed (${message(error)}) and SSE failed (${message(sseError)})`,
        { cause: sseError },
      );
    }
  }
}

async function viaSse(config: HttpServerConfig, options: ConnectOptions): Promise<Connection> {
  const wire = await remoteWire(config, 'sse', options.login);
  await wire.start?.();
  // Legacy SSE predates the modern era.
  return handshake(wire, legacyOnly(options));
}

/**
 * A wire to a remote server. Loaded on demand: the HTTP client and its OAuth come with the SDK's client package, some
 * fifteen megabytes of memory that a proxy of local servers only never needs.
 */
async function remoteWire(
  config: HttpServerConfig,
  kind: 'streamable' | 'sse',
  login: UpstreamLogin | undefined,
): Promise<RemoteWire> {
  const remote = await import('./remote.js');
  return remote.remoteWire(config, kind, login);
}

function legacyOnly(options: ConnectOptions): ConnectOptions {
  return { ...options, plan: { era: { protocol: 'legacy' } } };
}

async function handshake(wire: Wire, options: ConnectOptions): Promise<Connection> {
  const peer = new Peer(wire, options.handlers, `mcp-offload-${options.config.name}`);
  const deadline = Date.now() + options.timeoutMs;
  try {
    return await findEra(peer, wire, options, deadline);
  } catch (error) {
    await peer.close();
    throw error;
  }
}

async function findEra(peer: Peer, wire: Wire, options: ConnectOptions, deadline: number): Promise<Connection> {
  const { plan, identity } = options;
  const prior = plan.era.protocol === 'auto' ? plan.prior : undefined;
  if (plan.era.protocol === 'legacy' || prior?.kind === 'legacy') return initialize(peer, wire, identity, deadline);
  if (prior?.kind === 'modern') return modern(peer, wire, prior.discover);
  const pinned = plan.era.protocol === 'modern';
  const probeMs = pinned ? left(deadline) : Math.min(plan.era.probeTimeoutMs ?? left(deadline), left(deadline));
  const authBefore = (wire as Partial<RemoteWire>).authFailure;
  const probe = discover(peer, identity);
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    probe.then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    ),
    new Promise<{ timeout: true }>((resolve) => (timer = setTimeout(() => resolve({ timeout: true }), probeMs))),
  ]);
  clearTimeout(timer);
  if ('answer' in outcome && outcome.answer) return modern(peer, wire, outcome.answer);
  if ('error' in outcome && outcome.error instanceof HandshakeError) throw outcome.error;
  if ('error' in outcome && outcome.error instanceof ConnectionClosedError)
    throw new HandshakeError(`the server closed the connection on server/discover`, true, undefined, {
      cause: outcome.error,
    });
  // A probe refused for its authorization says nothing of the era, and `initialize` would only meet the same refusal
  // after running the same authorization (the same discovery of the server's metadata) again.
  const authFailure = (wire as Partial<RemoteWire>).authFailure;
  if (authFailure !== undefined && authFailure !== authBefore)
    throw new HandshakeError(`server/discover failed: ${authFailure.message}`, true, undefined, { cause: authFailure });
  if (pinned) throw new HandshakeError('the server does not speak MCP 2026-07-28 (server/discover failed)', true);
  // A legacy server: it ignored the probe, or refused it. One that answers it later is a modern server that started
  // slowly; the answer is kept, for the caller to start it again in its era.
  let late: DiscoverAnswer | undefined;
  if ('timeout' in outcome) void probe.then((answer) => (late = answer ?? undefined)).catch(() => undefined);
  try {
    const connection = await initialize(peer, wire, identity, deadline);
    return { ...connection, probed: true, ...(late ? { lateDiscover: late } : {}) };
  } catch (error) {
    throw new HandshakeError(message(error), true, late, { cause: error });
  }
}

/**
 * Asks `server/discover` as a 2026-07-28 client does; resolves with the answer when it is a modern server's (a
 * DiscoverResult naming a version we speak, or an UnsupportedProtocolVersion error listing one), else undefined.
 */
async function discover(
  peer: Peer,
  identity: ClientIdentity,
  version = FIRST_MODERN_PROTOCOL_VERSION,
  retried = false,
): Promise<DiscoverAnswer | undefined> {
  const answer = await peer.request(Frame.request(0, 'server/discover', { _meta: envelopeMeta(identity, version) }));
  const error = answer.message.error;
  if (error) {
    // A recognized modern error names a modern server: the spec forbids falling back to `initialize` then. A
    // version it lists that the proxy speaks is tried once more (the revision's own negotiation).
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    const mutual = Array.isArray(supported)
      ? MODERN_PROTOCOL_VERSIONS.find((v) => supported.map(String).includes(v))
      : undefined;
    if (error.code === Codes.UnsupportedProtocolVersion && mutual !== undefined && !retried)
      return discover(peer, identity, mutual, true);
    if (error.code === Codes.UnsupportedProtocolVersion && Array.isArray(supported))
      throw new HandshakeError(
        `the server speaks MCP ${supported.map(String).join(', ')}; the proxy speaks ${[...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS].join(', ')}`,
        true,
      );
    return undefined;
  }
  const result = answer.message.result ?? {};
  const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions.map(String) : [];
  if (!versions.some((v) => MODERN_PROTOCOL_VERSIONS.includes(v))) return undefined;
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  return {
    supportedVersions: versions,
    capabilities: (result.capabilities ?? {}) as ServerCapabilities,
    ...(meta[SERVER_INFO_KEY] !== undefined ? { serverInfo: meta[SERVER_INFO_KEY] as Implementation } : {}),
    ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
  };
}

function modern(peer: Peer, wire: Wire, answer: DiscoverAnswer): Connection {
  (wire as RemoteWire).protocolVersion = FIRST_MODERN_PROTOCOL_VERSION;
  return {
    wire,
    peer,
    era: 'modern',
    protocolVersion: FIRST_MODERN_PROTOCOL_VERSION,
    capabilities: answer.capabilities,
    ...(answer.serverInfo ? { serverInfo: answer.serverInfo } : {}),
    ...(answer.instructions !== undefined ? { instructions: answer.instructions } : {}),
    discover: answer,
    probed: false,
  };
}

/** The 2025 handshake: `initialize`, in the version the identity asks for (else the newest), then `initialized`. */
async function initialize(peer: Peer, wire: Wire, identity: ClientIdentity, deadline: number): Promise<Connection> {
  const asked = identity.protocolVersion;
  const protocolVersion = asked !== undefined && isLegacyVersion(asked) ? asked : LEGACY_PROTOCOL_VERSIONS[0]!;
  let answer: Frame;
  try {
    answer = await peer.request(
      Frame.request(0, 'initialize', {
        protocolVersion,
        capabilities: identity.capabilities,
        clientInfo: identity.clientInfo,
      }),
      { timeoutMs: left(deadline) },
    );
  } catch (error) {
    if (error instanceof TimeoutError)
      throw new Error(`the server did not answer initialize within ${error.timeoutMs} ms`, { cause: error });
    throw error;
  }
  const error = answer.message.error;
  if (error) throw new Error(`initialize failed: ${error.message} (${error.code})`, { cause: error });
  const result = answer.message.result ?? {};
  const agreed = typeof result.protocolVersion === 'string' ? result.protocolVersion : undefined;
  if (agreed === undefined || !isLegacyVersion(agreed))
    throw new Error(`the server answered initialize with a protocol version the proxy does not speak: ${agreed}`);
  (wire as RemoteWire).protocolVersion = agreed;
  await peer.notify(Frame.notification('notifications/initialized'));
  (wire as RemoteWire).openStream?.();
  return {
    wire,
    peer,
    era: 'legacy',
    protocolVersion: agreed,
    capabilities: (result.capabilities ?? {}) as ServerCapabilities,
    ...(result.serverInfo ? { serverInfo: result.serverInfo as Implementation } : {}),
    ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
    probed: false,
  };
}

/** The `_meta` envelope of a 2026-07-28 request made as `identity` (the proxy's own requests: listing, discover). */
export function envelopeMeta(identity: ClientIdentity, version: string, logLevel?: string): Record<string, unknown> {
  return {
    [PROTOCOL_VERSION_KEY]: version,
    [CLIENT_INFO_KEY]: identity.clientInfo,
    [CLIENT_CAPABILITIES_KEY]: identity.capabilities,
    ...(logLevel !== undefined ? { 'io.modelcontextprotocol/logLevel': logLevel } : {}),
  };
}

/**
 * The built-in browser backend: a fresh in-process MCP server per connection (so a restart is a new one), joined
 * by an in-memory pair. Closing the wire waits until every browser is closed, so stopping the gateway leaves no
 * browser process behind.
 */
async function abpWire(config: AbpServerConfig, log: Logger): Promise<Wire> {
  // Loaded on demand: puppeteer-core takes a quarter of a second to import, which no other server should pay.
  const [{ createAbpBackend }, { InMemoryTransport }, { SdkWire }] = await Promise.all([
    import('./abp/backend.js'),
    import('@modelcontextprotocol/server'),
    import('../transports/sdk.js'),
  ]);
  const backend = createAbpBackend(config.abp, log);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await backend.server.connect(serverSide);
  const wire = new SdkWire(clientSide, () => backend.close());
  await wire.start();
  return wire;
}

function left(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

/**
 * What `npm exec`/`npx` sets to run the proxy itself, and must not reach a server the proxy starts: launched as
 * `npx --package=<tarball> mcp-offload -- npx -y <server>`, the inner npx would read `npm_config_package` as its own
 * `--package` and look for the server's name as a command of the proxy's package ("not found").
 */
const LAUNCHER_ONLY = new Set(['npm_config_package', 'npm_config_call']);

/** The proxy's environment as a server's, without what only described how the proxy itself was launched. */
function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !LAUNCHER_ONLY.has(key.toLowerCase())) out[key] = value;
  }
  return out;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
