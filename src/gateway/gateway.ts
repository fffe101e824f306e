import type {
  Implementation,
  InitializeRequest,
  JSONRPCRequest,
  Notification,
  Result,
  ServerCapabilities,
} from '@modelcontextprotocol/server';
import { sendRawRequest } from '../protocol/raw-messages.js';
import type { Config, ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { VERSION } from '../version.js';
import { CONNECTION_CLOSED, ClientError, forwardedError } from '../upstreams/errors.js';
import type { CatalogKind } from '../upstreams/catalog-fetch.js';
import { identityOf, type ClientIdentity, type FirstClient } from '../upstreams/client-identity.js';
import { ServerPool } from '../upstreams/server-pool.js';
import { Upstream, type ServerRequestExtra } from '../upstreams/upstream.js';
import { Catalog } from './catalog.js';
import type { RequestContext, RequestHandler } from './context.js';
import { unsupportedByClient } from './client-capabilities.js';
import { createHandlers, forward } from './handlers.js';
import type { InitializeAnswer } from './initialize.js';
import { DownstreamSession, type SessionIdentity, type SessionKind } from './session.js';
import { InputBridge } from './input-bridge.js';
import { ResourceWatch } from './resource-watch.js';
import { SessionView } from './session-view.js';
import { GatewayEvents } from './events.js';
import { InFlight } from './inflight.js';
import { relayLane, type RelayLane } from './relay-lane.js';
import { Offload } from './offload.js';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';

/** How long a request from an upstream to the client (a user answering, a model sampling) may take. */
const CLIENT_REQUEST_TIMEOUT_MS = 30 * 60_000;

export interface GatewayOptions {
  /**
   * The gateway serves one client for its whole life (stdio): every upstream is initialized again as that client
   * when it introduces itself, and everything an upstream sends goes to it.
   */
  oneClient?: boolean;
}

/**
 * The proxy's core: upstream connections on one side, client sessions on the other, and what each session sees
 * between them. Transports (stdio, HTTP) only create sessions and hand them a transport.
 */
export class Gateway {
  /** The shared connection of every configured server, started with the gateway. */
  readonly upstreams: Upstream[];
  readonly pools: ServerPool[];
  /** The catalog of the sessions served by shared connections only. */
  readonly catalog: Catalog;
  readonly offload: Offload;
  /** Calls, artifact reads and collections, for metrics and the audit log. */
  readonly events = new GatewayEvents();
  private readonly sharedView: SessionView;
  private readonly sessions = new Set<DownstreamSession>();
  /** Connections opened for one session, and that session. */
  private readonly owners = new Map<Upstream, DownstreamSession>();
  /** Sessions' own connections being stopped, for stop() to wait for. */
  private readonly releasing = new Set<Promise<void>>();
  private readonly handlers: Record<string, RequestHandler>;
  private stopped = false;
  /** Client requests being handled, for graceful shutdown. */
  private readonly inflight = new InFlight();
  /** The handler's tools/call in fewer steps, for the calls it fits (relay-lane.ts). */
  private readonly lane: RelayLane;
  /** Upstream requests that arrived before the client finished its handshake (one-client mode). */
  private readonly awaitingClient = new Set<() => void>();
  /** Legacy upstreams' calls made by modern clients, held between the clients' requests. */
  readonly bridge: InputBridge;
  /** Upstream subscriptions for the resource URIs modern clients' listen streams want updates of. */
  readonly resourceWatch: ResourceWatch;
  /** Who hears of changes in the shared catalog besides its sessions: stateless modern HTTP clients' listen streams. */
  private readonly sharedChangeListeners = new Set<SharedChangeListener>();

  constructor(
    readonly config: Config,
    readonly log: Logger,
    private readonly options: GatewayOptions = {},
  ) {
    this.offload = new Offload(config, log, this.events);
    this.pools = config.servers
      .filter((server) => server.enabled)
      .map(
        (server) => new ServerPool(this.makeUpstream(server), (identity) => this.makeUpstream(server, identity), log),
      );
    this.upstreams = this.pools.map((pool) => pool.shared);
    this.catalog = this.newCatalog();
    this.sharedView = new SessionView(this.upstreams, this.catalog);
    this.bridge = new InputBridge(config.gateway.inputHoldMs, log);
    this.resourceWatch = new ResourceWatch((uri) => this.sharedView.resourceServer(uri), log);
    this.lane = relayLane({ offload: this.offload, events: this.events, inflight: this.inflight, bridge: this.bridge });
    this.handlers = createHandlers({
      pageSize: config.gateway.pageSize,
      offload: this.offload,
      events: this.events,
      bridge: this.bridge,
    });
  }

  /**
   * Connects every upstream, waiting at most `startupTimeoutMs`: one slow or broken upstream
   * does not hold the others back, and it joins the catalog when it comes up. In one-client mode, `first` is the
   * client whose first message is waiting: the upstreams are started as it (see initializeSession).
   */
  async start(first?: FirstClient): Promise<void> {
    await this.offload.init();
    const as = this.options.oneClient ? first : undefined;
    await this.withinStartup(Promise.all(this.upstreams.map((u) => u.start(as))));
    const down = this.upstreams.filter((u) => u.state === 'down' || u.state === 'connecting').map((u) => u.name);
    const failed = this.upstreams.filter((u) => u.state === 'failed').map((u) => u.name);
    if (down.length) this.log.warn({ down }, 'serving without some upstreams; they are retried in the background');
    if (failed.length)
      this.log.warn({ failed }, 'serving without some upstreams that cannot be started (see the errors above)');
    const login = this.upstreams.filter((u) => u.state === 'needs-login').map((u) => u.name);
    if (login.length) this.log.warn({ login }, 'serving without some upstreams until you log in to them (see above)');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.bridge.stop();
    await Promise.all([...this.sessions].map((s) => s.close()));
    await Promise.all([...this.releasing]);
    await Promise.all(this.pools.map((pool) => pool.stop()));
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

  /**
   * A session for a new client; the caller connects it to a transport (or hands its Server to an SDK serving
   * entry). A modern one is served by the shared connections.
   */
  createSession(identity: SessionIdentity = {}, kind: SessionKind = { era: 'legacy' }): DownstreamSession {
    const session = new DownstreamSession(
      {
        serverInfo: this.serverInfo(),
        capabilities: this.capabilities(),
        instructions: this.instructions(),
        handle: (context) => this.handle(context),
        relayCall: this.lane,
        initialize: (s, params) => this.initializeSession(s, params),
        clientNotification: (s, notification) => this.clientNotification(s, notification),
        initialized: () => this.clientArrived(),
        closed: (s) => this.sessionClosed(s),
        log: this.log,
      },
      this.sharedView,
      identity,
      kind,
    );
    this.sessions.add(session);
    // A modern client has no handshake: it is there once it has sent something, and an upstream's question that
    // was waiting for a client learns at once that it cannot be asked outside a call.
    if (kind.era === 'modern' && !kind.transient) this.clientArrived();
    return session;
  }

  /**
   * Tells `listener` of every change in the shared catalog (list_changed) and of resources/updated on it, with the
   * server whose shared connection saw it; `remote` when another replica saw it (relayChange).
   */
  onSharedChange(listener: SharedChangeListener): () => void {
    this.sharedChangeListeners.add(listener);
    return () => this.sharedChangeListeners.delete(listener);
  }

  /**
   * A change another replica saw on its shared connections (src/shared/change-fanout.ts): told to the clients served
   * by this replica's shared connections as if seen here. Legacy clients hear of list changes, and of a resource's
   * update when they subscribed to it; listen streams hear of what they asked for. A session whose view does not
   * hold this replica's shared connection of `server` (its own process of it) is not told: what changed is not what
   * it sees.
   */
  relayChange(notification: Notification, server: string): void {
    const shared = this.upstreams.find((u) => u.name === server);
    if (!shared) return;
    const uri = String((notification.params as { uri?: unknown } | undefined)?.uri);
    const updated = notification.method === 'notifications/resources/updated';
    for (const session of this.sessions) {
      if (!session.view.serves(shared) || session.kind.transient || session.era !== 'legacy') continue;
      if (!updated || session.isSubscribed(uri)) void session.notify(notification);
    }
    for (const listener of this.sharedChangeListeners) listener(notification, { remote: true, server });
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** A single upstream is mirrored, so wrapping a server changes nothing the client can see. */
  serverInfo(upstreams: readonly Upstream[] = this.upstreams): Implementation {
    const only = single(upstreams);
    if (only?.serverInfo) return only.serverInfo;
    return { name: 'mcp-offload', version: VERSION };
  }

  instructions(upstreams: readonly Upstream[] = this.upstreams): string | undefined {
    const only = single(upstreams);
    if (only) return only.instructions;
    const parts = upstreams.filter((u) => u.instructions).map((u) => `## ${u.name}\n${u.instructions}`);
    return parts.length ? parts.join('\n\n') : undefined;
  }

  /**
   * The union of what the upstreams offer. An upstream not yet connected might offer anything,
   * so while any is unknown the proxy declares every feature it can forward.
   */
  capabilities(upstreams: readonly Upstream[] = this.upstreams): ServerCapabilities {
    const known = upstreams.filter((u) => u.capabilities).map((u) => u.capabilities!);
    const unknown = known.length < upstreams.length;
    const any = (key: keyof ServerCapabilities) => unknown || known.some((c) => c[key] !== undefined);
    const capabilities: ServerCapabilities = { tools: { listChanged: true } };
    if (any('prompts')) capabilities.prompts = { listChanged: true };
    if (any('resources') || this.offload.offersResources) {
      capabilities.resources = { listChanged: true, subscribe: unknown || known.some((c) => c.resources?.subscribe) };
    }
    if (any('logging')) capabilities.logging = {};
    if (any('completions')) capabilities.completions = {};
    const only = single(upstreams);
    if (only?.capabilities?.experimental) capabilities.experimental = only.capabilities.experimental;
    return capabilities;
  }

  private makeUpstream(server: ServerConfig, identity?: ClientIdentity): Upstream {
    return new Upstream(
      server,
      {
        serverRequest: (upstream, request, extra) => this.serverRequest(upstream, request, extra),
        notification: (upstream, notification) => this.upstreamNotification(upstream, notification),
        catalogChanged: (upstream, kinds, announced) => this.catalogChanged(upstream, kinds, announced),
        stateChanged: (upstream) => this.log.debug({ server: upstream.name, state: upstream.state }, 'upstream state'),
      },
      this.log,
      identity,
    );
  }

  private newCatalog(): Catalog {
    return new Catalog(
      this.config.gateway.separator,
      this.log,
      this.offload.builtinTools.map((t) => t.name),
      (upstream, tool) => this.offload.decorateTool(upstream.name, tool),
    );
  }

  /** Resolves when `work` does or `startupTimeoutMs` has passed, whichever is first. */
  private async withinStartup(work: Promise<unknown>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.config.gateway.startupTimeoutMs);
      timer.unref();
    });
    await Promise.race([work, timeout]);
    clearTimeout(timer);
  }

  /**
   * A client has introduced itself. Upstreams learn who it is before it is answered: in one-client mode every
   * upstream is initialized again as the client, in the client's era where the server speaks both; otherwise each
   * isolated server gets a connection of its own for it, and a server of both eras a legacy-era one. The answer
   * mirrors what those upstreams said.
   */
  private async initializeSession(
    session: DownstreamSession,
    params: InitializeRequest['params'],
  ): Promise<InitializeAnswer> {
    const identity = identityOf(params);
    let connections: readonly Upstream[] = this.upstreams;
    if (this.options.oneClient) {
      await this.withinStartup(Promise.all(this.upstreams.map((u) => u.reconnectAs(identity, { legacy: true }))));
    } else {
      connections = await this.sessionConnections(session, identity);
    }
    return {
      serverInfo: this.serverInfo(connections),
      capabilities: this.capabilities(connections),
      instructions: this.instructions(connections),
      protocolVersion: single(connections)?.protocolVersion,
    };
  }

  /**
   * The connections that serve a legacy client's session, one per server: the shared one, a legacy-era one for a
   * server of both eras, or one of its own (server-pool.ts). Its own are started before the client is answered.
   */
  private async sessionConnections(session: DownstreamSession, identity: ClientIdentity): Promise<readonly Upstream[]> {
    const pools = this.pools;
    const tried = pools.map((pool) => pool.connectionFor(session.id, identity));
    if (tried.every((u, i) => u === this.upstreams[i])) return this.upstreams;
    for (const pool of pools) {
      const own = pool.ownConnection(session.id);
      if (own) this.owners.set(own, session);
    }
    session.view = new SessionView(tried, this.newCatalog());
    await this.withinStartup(Promise.all(tried.map((u, i) => pools[i]!.start(u))));
    // A server that refused the legacy era serves the client from its modern connection.
    const connections = tried.map((u, i) => pools[i]!.settle(session.id, u));
    for (const upstream of tried) if (!connections.includes(upstream)) this.owners.delete(upstream);
    if (connections.every((u, i) => u === this.upstreams[i])) {
      session.view = this.sharedView;
      return this.upstreams;
    }
    if (connections.some((u, i) => u !== tried[i])) session.view = new SessionView(connections, this.newCatalog());
    // A shared legacy-era connection that was up already announces no change to a new view.
    session.view.refresh();
    return connections;
  }

  private sessionClosed(session: DownstreamSession): void {
    this.sessions.delete(session);
    if (session.view === this.sharedView) return;
    for (const upstream of session.view.upstreams) {
      if (this.owners.get(upstream) === session) this.owners.delete(upstream);
    }
    const released = Promise.all(this.pools.map((pool) => pool.release(session.id))).then(() => undefined);
    this.releasing.add(released);
    void released.finally(() => this.releasing.delete(released));
  }

  /** Whether the gateway has a handler of its own for `method` (a lone upstream also gets methods it has none for). */
  handles(method: string): boolean {
    return method in this.handlers;
  }

  private handle(context: RequestContext): Promise<Result> {
    return this.inflight.track(() => this.route(context));
  }

  private async route(context: RequestContext): Promise<Result> {
    const handler = this.handlers[context.request.method];
    if (handler) return handler(context);
    // An unknown method goes to a lone upstream as is: it may know it even if we do not.
    const only = single(context.session.view.upstreams);
    if (only) return forward(context, only);
    throw new ClientError(ProtocolErrorCode.MethodNotFound, `Method not found: ${context.request.method}`);
  }

  /** A client's roots changed: the connections that speak for it are told (a shared one speaks for nobody). */
  private clientNotification(session: DownstreamSession, notification: Notification): void {
    if (notification.method === 'notifications/roots/list_changed') {
      for (const upstream of session.view.upstreams) {
        if (this.options.oneClient || this.owners.get(upstream) === session) void upstream.notify(notification);
      }
      return;
    }
    this.log.debug({ method: notification.method, session: session.id }, 'client notification not forwarded');
  }

  /** Sampling, elicitation and roots requests go to the client the upstream is asking (see askedSession). */
  private async serverRequest(upstream: Upstream, request: JSONRPCRequest, extra: ServerRequestExtra): Promise<Result> {
    const { method } = request;
    const bridged = this.bridgedCall(upstream, method);
    if (bridged) return bridged.ask(request, extra.mcpReq.signal);
    const session = await this.askedSession(upstream, method, extra.mcpReq.signal);
    if (session.era === 'modern') {
      throw new ClientError(
        ProtocolErrorCode.InvalidRequest,
        `mcp-offload cannot pass ${method} from upstream "${upstream.name}" on to its MCP client: the client speaks MCP 2026-07-28, ` +
          `where a server asks the client something only within a call, and no call of that client is in flight on this connection`,
      );
    }
    // MCP lets a server ask the client things only once the client has said `initialized`.
    await session.handshake(extra.mcpReq.signal);
    if (extra.mcpReq.signal.aborted || session.isClosed) {
      throw new ClientError(CONNECTION_CLOSED, `the MCP client went away before ${method} could be asked`);
    }
    const unsupported = unsupportedByClient(session.clientCapabilities, request, upstream.name);
    if (unsupported) throw unsupported;
    try {
      return await sendRawRequest(
        session.server,
        { method, params: request.params },
        {
          signal: extra.mcpReq.signal,
          relatedRequestId: session.requestServedBy(upstream),
          timeout: CLIENT_REQUEST_TIMEOUT_MS,
        },
      );
    } catch (error) {
      throw forwardedError(error);
    }
  }

  /**
   * The client an upstream's request is for, known exactly, never guessed: the session a connection was opened for;
   * in one-client mode the client; on a shared connection the one client whose calls it is serving. When a shared
   * connection serves calls of several clients, or none, nobody can know, and the upstream is told so.
   */
  private async askedSession(upstream: Upstream, method: string, signal: AbortSignal): Promise<DownstreamSession> {
    const owner = this.owners.get(upstream);
    if (owner) return owner;
    if (this.options.oneClient) {
      // A server asks for roots as soon as it is initialized, which may be before the client is there.
      if (!this.theClient()) await this.clientConnected(signal);
      const client = this.theClient();
      if (client) return client;
      throw new ClientError(
        ProtocolErrorCode.InternalError,
        `no MCP client is connected to answer ${method} from upstream "${upstream.name}"`,
      );
    }
    this.pools.find((pool) => pool.isShared(upstream))?.sharedAsked(method);
    const serving = this.sessionsServedBy(upstream);
    if (serving.length === 1) return serving[0]!;
    const calls =
      serving.length === 0
        ? 'no call of any client is in flight on it'
        : `calls of ${serving.length} clients are in flight on it`;
    throw new ClientError(
      ProtocolErrorCode.InvalidRequest,
      `mcp-offload cannot tell which client ${method} is for: upstream "${upstream.name}" serves its clients on one shared connection and ${calls}. ` +
        `Set "isolation: session" for server "${upstream.name}" in the mcp-offload config to give every client a connection of its own.`,
    );
  }

  /**
   * The modern client's call a legacy upstream's question belongs to: the one bridged call in flight on the
   * connection, or the newest when all of them are one client's; none when no modern call is in flight there or a
   * legacy client's call is too (askedSession decides then). Calls of several modern clients make the question
   * unattributable, and the upstream is told so.
   */
  private bridgedCall(upstream: Upstream, method: string): ReturnType<InputBridge['callsOn']>[number] | undefined {
    if (this.owners.has(upstream)) return undefined;
    const calls = this.bridge.callsOn(upstream);
    if (calls.length === 0) return undefined;
    if (this.sessionsServedBy(upstream).some((session) => session.era === 'legacy')) return undefined;
    if (new Set(calls.map((call) => call.binding)).size === 1) return calls[calls.length - 1];
    throw new ClientError(
      ProtocolErrorCode.InvalidRequest,
      `mcp-offload cannot tell which client ${method} is for: upstream "${upstream.name}" serves calls of ${calls.length} MCP 2026-07-28 clients on one shared connection`,
    );
  }

  /** Sessions with a request in flight on this connection. */
  private sessionsServedBy(upstream: Upstream): DownstreamSession[] {
    return [...this.sessions].filter((session) => session.requestServedBy(upstream) !== undefined);
  }

  /** The client of a one-client gateway, once it has introduced itself. */
  private theClient(): DownstreamSession | undefined {
    for (const session of this.sessions) if (session.isInitialized && !session.isClosed) return session;
    return undefined;
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

  /**
   * Progress has its own route (progress-router.ts). Resource updates go to the sessions that subscribed through
   * this connection; anything else (logging, ...) to the session the connection serves, as askedSession finds it,
   * and to nobody when that is not known.
   */
  private upstreamNotification(upstream: Upstream, notification: Notification): void {
    if (notification.method === 'notifications/resources/updated') {
      const uri = String((notification.params as { uri?: unknown } | undefined)?.uri);
      for (const session of this.sessions) {
        if (!session.view.serves(upstream) || session.kind.transient) continue;
        // A modern client's listen stream has the URIs it wants in its filter, and the SDK's router applies it.
        if (session.era === 'modern' || session.isSubscribed(uri)) void session.notify(notification);
      }
      // Modern clients' listen streams hear the shared connection (not a legacy client's connection, shared or not).
      if (this.upstreams.includes(upstream))
        for (const listener of this.sharedChangeListeners)
          listener(notification, { remote: false, server: upstream.name });
      return;
    }
    let outgoing = notification;
    if (notification.method === 'notifications/message' && this.upstreams.length > 1) {
      const params = (notification.params ?? {}) as { logger?: string };
      const logger = params.logger ? `${upstream.name}/${params.logger}` : upstream.name;
      outgoing = { ...notification, params: { ...params, logger } };
    }
    const session = this.notifiedSession(upstream);
    if (session) {
      void session.notifyCall(upstream, outgoing);
      return;
    }
    this.log.debug(
      { server: upstream.name, method: notification.method, params: notification.params },
      'notification from a shared upstream that serves no single client now; not forwarded to any client',
    );
  }

  private notifiedSession(upstream: Upstream): DownstreamSession | undefined {
    const owner = this.owners.get(upstream);
    if (owner) return owner;
    if (this.options.oneClient) return this.theClient();
    const serving = this.sessionsServedBy(upstream);
    return serving.length === 1 ? serving[0] : undefined;
  }

  /**
   * An upstream's lists changed: every view it is part of is merged again, and the sessions of a view whose merged
   * list really changed are told. A session's own connection changes only its view. When the upstream itself
   * announced the change (its list_changed), its clients are told even if the lists read back the same: a relay
   * passes the server's word on (what changed may be nothing the list shows), while a reconnect that lists the
   * same again tells nobody.
   */
  private catalogChanged(upstream: Upstream, kinds: CatalogKind[], announced = false): void {
    const views = new Map<SessionView, DownstreamSession[]>();
    if (!this.owners.has(upstream) && this.sharedView.serves(upstream)) views.set(this.sharedView, []);
    for (const session of this.sessions) {
      if (!session.view.serves(upstream) || session.kind.transient) continue;
      const members = views.get(session.view) ?? [];
      members.push(session);
      views.set(session.view, members);
    }
    for (const [view, members] of views) {
      const changed = view.refresh();
      if (announced) for (const kind of kinds) changed.add(SessionView.listChangedOf(kind));
      this.log.debug(
        { server: upstream.name, kinds, changed: [...changed], sessions: members.length },
        'catalog rebuilt',
      );
      for (const method of changed) for (const session of members) void session.notify({ method });
      if (view === this.sharedView) {
        for (const method of changed) {
          for (const listener of this.sharedChangeListeners)
            listener({ method }, { remote: false, server: upstream.name });
        }
      }
    }
  }
}

/** Who hears of changes on the shared connections: `server` is whose connection saw it, `remote` another replica's. */
export type SharedChangeListener = (notification: Notification, origin: { remote: boolean; server: string }) => void;

function single(upstreams: readonly Upstream[]): Upstream | undefined {
  return upstreams.length === 1 ? upstreams[0] : undefined;
}
