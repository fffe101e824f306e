import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  InMemoryTransport,
} from '@modelcontextprotocol/client';
import type { FetchLike, PriorDiscovery, Transport } from '@modelcontextprotocol/client';
import type { AbpServerConfig, HttpServerConfig, ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { ProcessTransport } from '../transports/process-transport.js';
import { DecoratedTransport } from '../transports/decorated-transport.js';
import type { EraChoice } from './client-identity.js';
import type { UpstreamLogin } from './oauth/upstream-login.js';
import { exactNumbersFetch } from './exact-fetch.js';
import { numbersAsDoubles } from '../codec/exact-numbers.js';

/**
 * How long a freshly started stdio server has to answer `server/discover`. Legacy servers that ignore
 * requests before `initialize` (the Python SDK's, among others) make every first connect wait this long, so it
 * is short; a modern server that starts slower than this answers late, is recognized by that answer and is started
 * again in its era (Upstream.startAgainModern). The server's `probeTimeoutMs` overrides it.
 */
export const STDIO_PROBE_TIMEOUT_MS = 1000;

/** The era the connection is to find, and a verdict from an earlier connection that spares the probe. */
export interface EraPlan {
  era: EraChoice;
  prior?: PriorDiscovery;
}

/** A client for a connection attempt; `era` says how it finds the server's era. */
export type MakeClient = (era: EraChoice) => Client;

export interface ConnectedClient {
  client: Client;
  /** The upstream's own transport (the client may be connected to a decoration of it). */
  transport: Transport;
}

/** What the client connects to instead of the upstream's transport itself. */
export type Decorate = (transport: Transport) => Transport;

/**
 * Connects `makeClient()` to the server over the transport the config asks for. For `auto` HTTP
 * servers Streamable HTTP is tried first and legacy SSE second, as the MCP spec recommends.
 */
export async function connectClient(
  config: ServerConfig,
  makeClient: MakeClient,
  log: Logger,
  timeoutMs: number,
  decorate: Decorate = (transport) => transport,
  plan: EraPlan = { era: { protocol: 'legacy' } },
  login?: UpstreamLogin,
): Promise<ConnectedClient> {
  const legacy: EraPlan = { era: { protocol: 'legacy' } };
  const attempt = (transport: Transport, { era, prior }: EraPlan = plan) =>
    connectThrough(makeClient(era), transport, decorate, { timeout: timeoutMs, ...(prior ? { prior } : {}) });
  if (config.kind === 'stdio') {
    const transport = new ProcessTransport({
      command: config.command,
      args: config.args,
      env: { ...stringEnv(process.env), ...config.env },
      cwd: config.cwd,
      log,
      cutLongLiterals: true,
      ...(config.exitGraceMs !== undefined ? { killGraceMs: config.exitGraceMs } : {}),
    });
    const era = { probeTimeoutMs: STDIO_PROBE_TIMEOUT_MS, ...plan.era };
    return attempt(transport, { ...plan, era });
  }
  // The built-in browser backend is the proxy's own legacy-era server; legacy SSE predates the modern era.
  if (config.kind === 'abp') return attempt(await abpTransport(config, log), legacy);
  const auth = login?.transportOptions() ?? {};
  // A server that wants a login says so with a 401: that is no reason to try SSE, nor an outage to retry.
  const loginFailure = (error: unknown) => login?.failure(error) ?? error;
  if (config.transport === 'sse')
    return attempt(sse(config, auth), legacy).catch((e: unknown) => Promise.reject(loginFailure(e)));
  try {
    return await attempt(streamable(config, auth));
  } catch (error) {
    const needed = login?.failure(error);
    if (needed) throw needed;
    if (config.transport !== 'auto' || plan.era.protocol === 'modern') throw error;
    log.info({ err: String(error) }, 'Streamable HTTP failed; trying legacy SSE');
    try {
      return await attempt(sse(config, auth), legacy);
    } catch (sseError) {
      throw new Error(
        `could not connect to ${config.url}: Streamable HTTP failed (${message(error)}) and SSE failed (${message(sseError)})`,
        { cause: sseError },
      );
    }
  }
}

async function connectThrough(
  client: Client,
  transport: Transport,
  decorate: Decorate,
  options: { timeout: number; prior?: PriorDiscovery },
): Promise<ConnectedClient> {
  try {
    const decorated = decorate(transport);
    await client.connect(
      transport instanceof ProcessTransport ? asLocalProcess(decorated, transport) : decorated,
      options,
    );
    return { client, transport };
  } catch (error) {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The SDK tells a local process from a remote server by a transport's `pid` and `stderr`: to a local process a
 * probe nobody answers is a legacy server's silence, not an outage. The decorator the client connects to gets both.
 */
function asLocalProcess(transport: Transport, process: ProcessTransport): Transport {
  if ('pid' in transport) return transport;
  return Object.defineProperties(transport, {
    pid: { get: () => process.pid },
    stderr: { value: null },
  });
}

/**
 * The built-in browser backend, a fresh in-process MCP server per connection (so a restart is a new
 * one), joined by an in-memory pair. Closing the client's side waits until every browser is closed,
 * so stopping the gateway leaves no browser process behind.
 */
async function abpTransport(config: AbpServerConfig, log: Logger): Promise<Transport> {
  // Loaded on demand: puppeteer-core takes a quarter of a second to import, which no other server should pay.
  const { createAbpBackend } = await import('./abp/backend.js');
  const backend = createAbpBackend(config.abp, log);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await backend.server.connect(serverSide);
  // An in-process server gets objects: a number the proxy carries as its text reaches it as a double, as over a pipe.
  return new DecoratedTransport(clientSide, { outbound: numbersAsDoubles, afterClose: () => backend.close() });
}

/** What a connection to a remote server carries for OAuth (upstreams/oauth/): a provider, or a watching fetch. */
type AuthOptions = ReturnType<UpstreamLogin['transportOptions']>;

/** The transport a remote server's config names (`auto`: Streamable HTTP, the first one tried), for `login`. */
export function remoteTransport(
  config: HttpServerConfig,
  auth: AuthOptions,
): StreamableHTTPClientTransport | SSEClientTransport {
  return config.transport === 'sse' ? sse(config, auth) : streamable(config, auth);
}

function streamable(config: HttpServerConfig, auth: AuthOptions): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers },
    ...auth,
    fetch: exactNumbersFetch(fetchOf(auth)),
  });
}

function sse(config: HttpServerConfig, auth: AuthOptions): SSEClientTransport {
  return new SSEClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers },
    ...auth,
    fetch: exactNumbersFetch(fetchOf(auth)),
  });
}

/** The fetch OAuth watches with, if any: the exact-numbers fetch wraps it. */
function fetchOf(auth: AuthOptions): FetchLike | undefined {
  return 'fetch' in auth ? (auth.fetch as FetchLike | undefined) : undefined;
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
