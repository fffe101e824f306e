import type { IncomingMessage, Server as NodeHttpServer, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { AuthToken, Config, RedisOptions } from '../config/types.js';
import type { Logger } from '../logger.js';
import { http } from '../wire/node-http.js';
import { ArtifactRoutes } from './artifact-routes.js';
import { ARTIFACTS_PATH } from './artifact-paths.js';
import { auditArtifacts } from './audit.js';
import { galleryCsp } from './gallery.js';
import { countedCall, SavingsLedger } from './savings.js';
import { SAVINGS_PATH, savingsHtml } from './savings-page.js';
import { BearerAuth } from './auth.js';
import { rpcError, sendJson, type HttpContext } from './context.js';
import { HostCheck } from './host-check.js';
import { LinkSigner } from './link-signer.js';
import type { EventStore } from '../shared/event-store.js';
import { McpEndpoints, SSE_MESSAGES_PATH } from './mcp-endpoints.js';
import { MemoryEventStore } from './memory-event-store.js';
import { serveMetadata } from './oauth/protected-resource.js';
import { RequestAuth } from './request-auth.js';
import { gatewayMetrics } from './metrics.js';
import type { SharedState } from '../shared/shared-state.js';
import type { Gateway } from '../gateway/gateway.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** Largest request body accepted; large tool arguments (100 MB) must fit. Default: the config's. */
  maxBodyBytes?: number;
  /** Bearer tokens; default the config's `auth.tokens` (the CLI adds MCP_OFFLOAD_AUTH_TOKEN). */
  tokens?: readonly AuthToken[];
  /**
   * Where Streamable HTTP keeps sent messages for clients that reconnect: your own store (a database
   * shared by replicas), or false for none. Default: the config's `http.eventStore`.
   */
  eventStore?: EventStore | false;
  /** With redis: the shared state, connected already (the CLI does so before it starts the upstreams). */
  shared?: SharedState;
}

export interface HttpHandle {
  url: string;
  port: number;
  /** Stops taking connections, sessions and requests; what is in flight goes on. */
  stopAccepting(): void;
  /**
   * Stops accepting, then waits up to `graceMs` for calls in flight to finish and their responses to
   * be written; true if everything finished in time.
   */
  drain(graceMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;
export const KEEP_ALIVE_MS = 65_000;

/**
 * The HTTP gateway: Streamable HTTP at /mcp (stateful sessions), legacy SSE at /sse + /messages,
 * artifact downloads and the gallery at /artifacts, probes at /healthz and /readyz, Prometheus
 * metrics at /metrics. Everything but the probes and /metrics is checked for Host/Origin (DNS rebinding) and,
 * when tokens are configured, for a bearer token.
 */
export async function serveHttp(gateway: Gateway, options: HttpOptions, log: Logger): Promise<HttpHandle> {
  const { config } = gateway;
  let draining = false;
  // Loaded only when configured: jose and the issuer discovery are not on every sidecar's startup path.
  const oauth = config.auth.oauth
    ? new (await import('./oauth/oauth-gate.js')).OAuthGate(config.auth.oauth, config, log)
    : undefined;
  const auth = new RequestAuth(new BearerAuth(options.tokens ?? config.auth.tokens), oauth);
  // Before anything listens: a replica that cannot reach the state it shares must not serve.
  const shared = options.shared ?? (config.redis ? await sharedState(config.redis, config, log) : undefined);
  if (shared) {
    gateway.bridge.shareKey(shared.sealKey, shared.replica.id);
    gateway.onSharedChange((method, params, { remote, server }) => {
      if (!remote) shared.fanout.publish({ method, ...(params ? { params } : {}) }, server);
    });
    await shared.fanout.listen((notification, server) =>
      gateway.relayChange(notification.method, notification.params as Record<string, unknown> | undefined, server),
    );
  }
  const ctx: HttpContext = {
    gateway,
    config,
    log,
    auth,
    signer: new LinkSigner(shared?.linkKey ?? config.artifacts.links.signingKey, config.artifacts.links.ttlSeconds),
    maxBodyBytes: options.maxBodyBytes ?? config.httpOptions.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ...resumption(config.httpOptions, options.eventStore, shared),
    ...(shared ? { shared } : {}),
    draining: () => draining,
  };
  const hostCheck = new HostCheck(options.host, config.httpOptions, config.artifacts.publicUrl);
  const mcp = new McpEndpoints(ctx);
  const artifacts = new ArtifactRoutes(ctx, mcp);
  const metrics = gatewayMetrics(gateway, () => mcp.size);
  const stopAudit = auditArtifacts(gateway.events, log);
  // What the upstreams sent and the clients got since start, for the savings page.
  const savings = new SavingsLedger();
  const stopSavings = gateway.events.on('call', (event) => savings.count(countedCall(event)));

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0]!;
    // Probes and scrapers address the container by IP: no Host check (and no token for the probes). A page
    // rebinding its name to us gains nothing here: it cannot send a token, and probes say nothing secret.
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz') return readiness(gateway, res, draining);
    if (path === '/metrics') {
      if (config.auth.publicMetrics || (await auth.authenticate(req, res)) !== undefined) await sendMetrics(res);
      return;
    }
    // Public, and read cross-origin by browser-based clients before they hold a token: no Host/Origin check.
    const metadata = oauth?.metadataAt(path);
    if (metadata) return serveMetadata(req, res, metadata);
    // Browsers ask for it on every gallery visit; an empty answer keeps a 404 out of their console.
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    const refused = hostCheck.problem(req);
    if (refused) {
      log.warn({ reason: refused, path: path.slice(0, 200) }, 'http request refused');
      return sendJson(res, 403, { error: refused });
    }
    if (draining && req.headers['mcp-session-id'] === undefined && path !== SSE_MESSAGES_PATH) {
      return sendJson(res, 503, { error: 'mcp-offload is shutting down' }, { connection: 'close' });
    }
    if (path === ARTIFACTS_PATH || path.startsWith(`${ARTIFACTS_PATH}/`)) return artifacts.handle(req, res, path);
    // Every client's savings, as /metrics has them: the same access.
    if (path === SAVINGS_PATH) {
      if (config.auth.publicMetrics || (await auth.authenticate(req, res)) !== undefined) await sendSavings(req, res);
      return;
    }
    const principal = auth.authenticate(req, res);
    const token = principal instanceof Promise ? await principal : principal;
    if (token === undefined) return;
    if (path === '/mcp') return mcp.handleMcp(req, res, token);
    if (path === '/sse') return mcp.handleSse(req, res, token);
    if (path === SSE_MESSAGES_PATH) return mcp.handleMessages(req, res, token);
    sendJson(res, 404, { error: 'not found' });
  };
  const sendSavings = async (req: IncomingMessage, res: ServerResponse) => {
    const { store } = gateway.offload;
    // Over a shared bucket the page counts what every replica stored; a bucket that does not answer, what is known.
    await store.refresh().catch((err: unknown) => log.warn({ err }, 'could not refresh the artifact list'));
    const nonce = randomBytes(16).toString('base64');
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': galleryCsp(nonce),
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
        'x-frame-options': 'DENY',
      })
      .end(req.method === 'HEAD' ? undefined : savingsHtml(savings, store.list(), nonce));
  };
  const sendMetrics = async (res: ServerResponse) => {
    res
      .writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' })
      .end(await metrics.metrics());
  };

  const server: NodeHttpServer = http.createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log.error({ err: String(error) }, 'http request failed');
      if (!res.headersSent) rpcError(res, 500, 'Internal server error', -32603);
      else res.end();
    });
  });
  server.requestTimeout = 0;
  // Node's 5 s default closes an idle socket while a client that has just read a large result is still
  // building its next request; the POST then dies with EPIPE, and POSTs are not retried. Sixty-five
  // seconds also outlasts the 60 s idle timeout of common load balancers in front of a sidecar.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1000;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await shared?.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  try {
    oauth?.bind({ host: options.host, port });
  } catch (error) {
    server.close();
    await shared?.close();
    throw error;
  }
  void oauth?.warmUp();
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}/mcp`;
  await shared?.announce(config.httpOptions.advertiseUrl ?? peerUrl(options.host, port));
  log.info({ url, auth: auth.kind }, 'serving MCP over HTTP');
  const stopAccepting = () => {
    if (draining) return;
    draining = true;
    server.close();
  };
  return {
    url,
    port,
    stopAccepting,
    drain: async (graceMs) => {
      stopAccepting();
      const deadline = Date.now() + graceMs;
      const idle = await gateway.drain(graceMs);
      await mcp.responsesWritten(deadline);
      return idle;
    },
    close: async () => {
      stopAccepting();
      stopAudit();
      stopSavings();
      await mcp.closeAll();
      server.closeAllConnections();
      await shared?.close();
    },
  };
}

function resumption(
  http: Gateway['config']['httpOptions'],
  chosen: EventStore | false | undefined,
  shared: SharedState | undefined,
): Pick<HttpContext, 'resumption'> {
  // With redis, the default store is the shared one: a client resumes on whichever replica it reaches.
  const configured = shared ? shared.events : new MemoryEventStore(http.eventStoreLimits);
  const store = chosen ?? (http.eventStore === 'memory' ? configured : undefined) ?? false;
  return store ? { resumption: { store, retryMs: http.retryMs } } : {};
}

/** Where the other replicas reach this one by default: the address listened on (loopback for a wildcard). */
function peerUrl(listened: string, port: number): string {
  const host = listened === '0.0.0.0' || listened === '::' ? '127.0.0.1' : listened;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** 200 when every enabled upstream is connected; otherwise 503 naming the ones that are not. */
function readiness(gateway: Gateway, res: ServerResponse, draining: boolean): void {
  const notReady = gateway.upstreams.filter((u) => u.state !== 'up').map((u) => ({ name: u.name, state: u.state }));
  if (draining) return sendJson(res, 503, { status: 'shutting down', notReady });
  if (notReady.length) return sendJson(res, 503, { status: 'not ready', notReady });
  sendJson(res, 200, { status: 'ready', upstreams: gateway.upstreams.map((u) => u.name) });
}

/**
 * What the replicas share, in Redis. Imported only when Redis is configured: its client is some 800 module files
 * (24 MiB of an idle `--http` proxy, measured) that a single replica would hold for nothing.
 */
async function sharedState(redis: RedisOptions, config: Config, log: Logger): Promise<SharedState> {
  const { connectSharedState } = await import('../shared/shared-state.js');
  return connectSharedState(redis, config, log);
}
