import type {
  Implementation,
  JSONRPCRequest,
  Notification,
  Result,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { sendRawRequest } from '../protocol/raw-messages.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import { VERSION } from '../version.js';
import { ClientError, isMcpError, originalMessage } from '../upstreams/errors.js';
import type { CatalogKind } from '../upstreams/catalog-fetch.js';
import { Upstream, type ServerRequestExtra } from '../upstreams/upstream.js';
import { Catalog, type CatalogSnapshot } from './catalog.js';
import type { RequestContext, RequestHandler } from './context.js';
import { clientSupports } from './client-capabilities.js';
import { createHandlers, forward } from './handlers.js';
import { DownstreamSession, type SessionIdentity } from './session.js';
import { GatewayEvents } from './events.js';
import { InFlight } from './inflight.js';
import { Offload } from './offload.js';

/** How long a request from an upstream to the client (a user answering, a model sampling) may take. */
const CLIENT_REQUEST_TIMEOUT_MS = 30 * 60_000;

const LIST_CHANGED: Record<keyof CatalogSnapshot, string> = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
  resourceTemplates: 'notifications/resources/list_changed',
};

/**
 * The proxy's core: upstream connections on one side, client sessions on the other, the merged
 * catalog between them. Transports (stdio, HTTP) only create sessions and hand them a transport.
 */
export class Gateway {
  readonly upstreams: Upstream[];
  readonly catalog: Catalog;
  readonly offload: Offload;
  /** Calls, artifact reads and collections, for metrics and the audit log. */
  readonly events = new GatewayEvents();
  private readonly sessions = new Set<DownstreamSession>();
  private readonly handlers: Record<string, RequestHandler>;
  private catalogJson: Record<string, string> = {};
  private stopped = false;
  /** Client requests being handled, for graceful shutdown. */
  private readonly inflight = new InFlight();
  /** Upstream requests that arrived before any client finished its handshake. */
  private readonly awaitingClient = new Set<() => void>();

  constructor(
    readonly config: Config,
    readonly log: Logger,
  ) {
    this.offload = new Offload(config, log, this.events);
    this.catalog = new Catalog(
      config.gateway.separator,
      log,
      this.offload.builtinTools.map((t) => t.name),
      (upstream, tool) => this.offload.decorateTool(upstream.name, tool),
    );
    this.upstreams = config.servers
      .filter((server) => server.enabled)
      .map(
        (server) =>
          new Upstream(
            server,
            {
              serverRequest: (upstream, request, extra) => this.serverRequest(upstream, request, extra),
              notification: (upstream, notification) => this.upstreamNotification(upstream, notification),
              catalogChanged: (upstream, kinds) => this.catalogChanged(upstream, kinds),
              stateChanged: (upstream) => log.debug({ server: upstream.name, state: upstream.state }, 'upstream state'),
            },
            log,
          ),
      );
    for (const key of Object.keys(LIST_CHANGED)) this.catalogJson[key] = '[]';
    this.handlers = createHandlers({
      catalog: this.catalog,
      upstreams: this.upstreams,
      pageSize: config.gateway.pageSize,
      offload: this.offload,
      events: this.events,
    });
  }

  /**
   * Connects every upstream, waiting at most `startupTimeoutMs`: one slow or broken upstream
   * does not hold the others back, and it joins the catalog when it comes up.
   */
  async start(): Promise<void> {
    await this.offload.init();
    const started = Promise.all(this.upstreams.map((u) => u.start()));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.config.gateway.startupTimeoutMs);
      timer.unref();
    });
    await Promise.race([started, timeout]);
    clearTimeout(timer);
    const down = this.upstreams.filter((u) => u.state === 'down' || u.state === 'connecting').map((u) => u.name);
    const failed = this.upstreams.filter((u) => u.state === 'failed').map((u) => u.name);
    if (down.length) this.log.warn({ down }, 'serving without some upstreams; they are retried in the background');
    if (failed.length)
      this.log.warn({ failed }, 'serving without some upstreams that cannot be started (see the errors above)');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all([...this.sessions].map((s) => s.close()));
    await Promise.all(this.upstreams.map((u) => u.stop()));
    this.offload.stop();
  }

  /**
   * Resolves when no client request is being handled, or after `timeoutMs`; true if it went idle.
   * New requests are still served meanwhile: the transports stop taking them.
   */
  drain(timeoutMs: number): Promise<boolean> {
    return this.inflight.drain(timeoutMs);
  }

  get requestsInFlight(): number {
    return this.inflight.size;
  }

  /** A session for a new client; the caller connects it to a transport. */
  createSession(identity: SessionIdentity = {}): DownstreamSession {
    const session = new DownstreamSession(
      {
        serverInfo: this.serverInfo(),
        capabilities: this.capabilities(),
        instructions: this.instructions(),
        handle: (context) => this.handle(context),
        clientNotification: (s, notification) => this.clientNotification(s, notification),
        initialized: () => this.clientArrived(),
        closed: (s) => this.sessions.delete(s),
        log: this.log,
      },
      identity,
    );
    this.sessions.add(session);
    return session;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** A single upstream is mirrored, so wrapping a server changes nothing the client can see. */
  serverInfo(): Implementation {
    const only = this.single();
    if (only?.serverInfo) return only.serverInfo;
    return { name: 'mcp-offload', version: VERSION };
  }

  instructions(): string | undefined {
    const only = this.single();
    if (only) return only.instructions;
    const parts = this.upstreams.filter((u) => u.instructions).map((u) => `## ${u.name}\n${u.instructions}`);
    return parts.length ? parts.join('\n\n') : undefined;
  }

  /**
   * The union of what the upstreams offer. An upstream not yet connected might offer anything,
   * so while any is unknown the proxy declares every feature it can forward.
   */
  capabilities(): ServerCapabilities {
    const known = this.upstreams.filter((u) => u.capabilities).map((u) => u.capabilities!);
    const unknown = known.length < this.upstreams.length;
    const any = (key: keyof ServerCapabilities) => unknown || known.some((c) => c[key] !== undefined);
    const capabilities: ServerCapabilities = { tools: { listChanged: true } };
    if (any('prompts')) capabilities.prompts = { listChanged: true };
    if (any('resources') || this.offload.offersResources) {
      capabilities.resources = { listChanged: true, subscribe: unknown || known.some((c) => c.resources?.subscribe) };
    }
    if (any('logging')) capabilities.logging = {};
    if (any('completions')) capabilities.completions = {};
    const only = this.single();
    if (only?.capabilities?.experimental) capabilities.experimental = only.capabilities.experimental;
    return capabilities;
  }

  private single(): Upstream | undefined {
    return this.upstreams.length === 1 ? this.upstreams[0] : undefined;
  }

  private handle(context: RequestContext): Promise<Result> {
    return this.inflight.track(() => this.route(context));
  }

  private async route(context: RequestContext): Promise<Result> {
    const handler = this.handlers[context.request.method];
    if (handler) return handler(context);
    // An unknown method goes to a lone upstream as is: it may know it even if we do not.
    const only = this.single();
    if (only) return forward(context, only);
    throw new ClientError(ErrorCode.MethodNotFound, `Method not found: ${context.request.method}`);
  }

  private clientNotification(session: DownstreamSession, notification: Notification): void {
    if (notification.method === 'notifications/roots/list_changed') {
      for (const upstream of this.upstreams) void upstream.notify(notification);
      return;
    }
    this.log.debug({ method: notification.method, session: session.id }, 'client notification not forwarded');
  }

  /**
   * Sampling, elicitation and roots requests go to the client whose call the upstream is serving,
   * or else to the client heard from last.
   */
  private async serverRequest(upstream: Upstream, request: JSONRPCRequest, extra: ServerRequestExtra): Promise<Result> {
    const { method } = request;
    // A server asks for roots as soon as it is initialized, which is before any client has connected:
    // the question waits for a client rather than getting an answer no client gave.
    let session = this.clientFor(upstream);
    if (!session) {
      await this.clientConnected(extra.signal);
      session = this.clientFor(upstream);
    }
    if (!session) {
      throw new ClientError(
        ErrorCode.InternalError,
        `no MCP client is connected to answer ${method} from upstream "${upstream.name}"`,
      );
    }
    const missing = clientSupports(session.clientCapabilities, request);
    if (missing) {
      throw new ClientError(
        ErrorCode.MethodNotFound,
        `the MCP client connected to mcp-offload does not support ${missing} (${method} requested by upstream "${upstream.name}")`,
      );
    }
    try {
      return await sendRawRequest(
        session.server,
        { method, params: request.params },
        {
          signal: extra.signal,
          relatedRequestId: session.requestServedBy(upstream),
          timeout: CLIENT_REQUEST_TIMEOUT_MS,
        },
      );
    } catch (error) {
      if (isMcpError(error)) throw new ClientError(error.code, originalMessage(error), error.data);
      throw error;
    }
  }

  /**
   * Resolves once some client has finished its handshake, or the request is cancelled (a closing upstream cancels it).
   */
  private clientConnected(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.awaitingClient.delete(done);
        signal.removeEventListener('abort', done);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, CLIENT_REQUEST_TIMEOUT_MS);
      timer.unref();
      signal.addEventListener('abort', done, { once: true });
      this.awaitingClient.add(done);
    });
  }

  private clientArrived(): void {
    for (const wake of [...this.awaitingClient]) wake();
  }

  private clientFor(upstream: Upstream): DownstreamSession | undefined {
    let best: DownstreamSession | undefined;
    for (const session of this.sessions) {
      if (!session.isInitialized) continue;
      if (session.requestServedBy(upstream) !== undefined) return session;
      if (!best || session.lastActive > best.lastActive) best = session;
    }
    return best;
  }

  private upstreamNotification(upstream: Upstream, notification: Notification): void {
    if (notification.method === 'notifications/resources/updated') {
      const uri = String((notification.params as { uri?: unknown } | undefined)?.uri);
      for (const session of this.sessions) if (session.isSubscribed(uri)) void session.notify(notification);
      return;
    }
    let outgoing = notification;
    if (notification.method === 'notifications/message' && this.upstreams.length > 1) {
      const params = (notification.params ?? {}) as { logger?: string };
      const logger = params.logger ? `${upstream.name}/${params.logger}` : upstream.name;
      outgoing = { ...notification, params: { ...params, logger } };
    }
    for (const session of this.sessions) void session.notify(outgoing);
  }

  private catalogChanged(upstream: Upstream, kinds: CatalogKind[]): void {
    this.catalog.rebuild(this.upstreams);
    const changed = new Set<string>();
    for (const key of Object.keys(LIST_CHANGED) as (keyof CatalogSnapshot)[]) {
      const json = JSON.stringify(this.catalog.snapshot[key]);
      if (this.catalogJson[key] !== json) changed.add(LIST_CHANGED[key]);
      this.catalogJson[key] = json;
    }
    this.log.debug({ server: upstream.name, kinds, changed: [...changed] }, 'catalog rebuilt');
    for (const method of changed) for (const session of this.sessions) void session.notify({ method });
  }
}
