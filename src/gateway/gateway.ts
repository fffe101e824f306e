import type { Implementation, InitializeRequest, ServerCapabilities } from '@modelcontextprotocol/server';
import type { Config, ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { onAbort, type Signal } from '../rpc/cancellation.js';
import { VERSION } from '../version.js';
import type { InitializeAnswer, RelayContext } from '../relay/context.js';
import { Dispatcher } from '../relay/dispatch.js';
import { interceptors } from '../relay/order.js';
import { helloOf } from '../relay/interceptors/handshake.js';
import { Session, type SessionIdentity, type SessionKind } from '../relay/session.js';
import type { CatalogKind } from '../upstreams/catalog-fetch.js';
import { identityOf, type ClientIdentity, type FirstClient } from '../upstreams/client-identity.js';
import { ServerPool } from '../upstreams/server-pool.js';
import { Upstream } from '../upstreams/upstream.js';
import { Catalog } from '../relay/catalog.js';
import { GatewayEvents } from '../relay/events.js';
import { InFlight } from '../relay/inflight.js';
import { InputBridge } from '../relay/input-bridge.js';
import { Offload } from '../relay/offload.js';
import { ResourceWatch } from '../relay/resource-watch.js';
import { SessionView } from '../relay/session-view.js';
import { tracingSettings } from '../tracing/settings.js';
import type { Tracing } from '../tracing/trace.js';

/** The proxy's own identity, before several upstreams: one object, as each answer's `_meta` may carry it. */
const GATEWAY_INFO: Implementation = { name: 'mcp-offload', version: VERSION };

export interface GatewayOptions {
  /**
   * The gateway serves one client for its whole life (stdio): every upstream is initialized again as that client
   * when it introduces itself, and everything an upstream sends goes to it.
   */
  oneClient?: boolean;
}

/** Who hears of changes in the shared catalog: `server` is whose connection saw it, `remote` another replica's. */
export type SharedChangeListener = (
  method: string,
  params: Record<string, unknown> | undefined,
  origin: { remote: boolean; server: string },
) => void;

/**
 * The proxy's core: upstream connections on one side, client sessions on the other, what each session sees between
 * them, and the one relay every message between them takes (src/relay/). Transports only create sessions and give
 * them their wires.
 */
export class Gateway implements RelayContext {
  /** The shared connection of every configured server, started with the gateway. */
  readonly upstreams: Upstream[];
  readonly pools: ServerPool[];
  /** The catalog of the sessions served by shared connections only. */
  readonly catalog: Catalog;
  readonly offload: Offload;
  /** Calls, artifact reads and collections, for metrics and the audit log. */
  readonly events = new GatewayEvents();
  /** Client requests being handled, for graceful shutdown. */
  readonly inflight = new InFlight();
  /** OpenTelemetry traces, once start() has found them asked for (the YAML `tracing`, the OTEL_* variables). */
  tracing: Tracing | undefined;
  /** Legacy upstreams' calls made by modern clients, held between the clients' requests. */
  readonly bridge: InputBridge;
  /** Upstream subscriptions for the resource URIs modern clients' listen streams want updates of. */
  readonly resourceWatch: ResourceWatch;
  readonly oneClient: boolean;
  private readonly sharedView: SessionView;
  private readonly live = new Set<Session>();
  /** Connections opened for one session, and that session. */
  private readonly owners = new Map<Upstream, Session>();
  /** Sessions' own connections being stopped, for stop() to wait for. */
  private readonly releasing = new Set<Promise<void>>();
  private readonly dispatcher: Dispatcher;
  private stopped = false;
  /** Upstream requests that arrived before the client finished its handshake (one-client mode). */
  private readonly awaitingClient = new Set<() => void>();
  /** Who hears of changes in the shared catalog besides its sessions: HTTP clients' listen streams, other replicas. */
  private readonly sharedChangeListeners = new Set<SharedChangeListener>();

  constructor(
    readonly config: Config,
    readonly log: Logger,
    options: GatewayOptions = {},
  ) {
    this.oneClient = options.oneClient ?? false;
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
    this.dispatcher = new Dispatcher(interceptors(this), log);
  }

  /** Every connected client. */
  get sessions(): ReadonlySet<Session> {
    return this.live;
  }

  /**
   * Connects every upstream, waiting at most `startupTimeoutMs`: one slow or broken upstream does not hold the others
   * back, and it joins the catalog when it comes up. In one-client mode, `first` is the client whose first message
   * is waiting: the upstreams are started as it (see initialize).
   */
  async start(first?: FirstClient): Promise<void> {
    // Before any request: the chains of the kinds of message are built once, with tracing or without it. The
    // variables are process.env's, which the SDK's exporter reads too.
    const tracing = tracingSettings(this.config.tracing, process.env, (message) => this.log.warn(message));
    // The SDK is loaded only now, and only when tracing is on.
    if (tracing) this.tracing = await (await import('../tracing/start.js')).startTracing(tracing, this.log);
    const as = this.oneClient ? first : undefined;
    // The store opens while the upstreams start: over a directory of many records its opening takes a second or more,
    // and neither needs the other (a call reaches the pipeline only once the gateway serves).
    await Promise.all([this.offload.init(), this.withinStartup(Promise.all(this.upstreams.map((u) => u.start(as))))]);
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
    await Promise.all([...this.live].map((s) => s.close()));
    await Promise.all([...this.releasing]);
    await Promise.all(this.pools.map((pool) => pool.stop()));
    this.offload.stop();
    // Last: the spans of the calls that just ended are exported before the process goes.
    await this.tracing?.shutdown();
  }

  /**
   * Resolves when no client request is being handled, or after `timeoutMs`; true if it went idle. New requests are
   * still served meanwhile: the transports stop taking them.
   */
  drain(timeoutMs: number): Promise<boolean> {
    return this.inflight.drain(timeoutMs);
  }

  get requestsInFlight(): number {
    return this.inflight.size;
  }

  /**
   * A session for a new client; the caller connects it to a wire (`attach`) or an MCP SDK transport (`connect`). A
   * session starts out served by the shared connections; a 2025 client's `initialize` may give it its own.
   */
  createSession(identity: SessionIdentity = {}, kind: SessionKind = {}): Session {
    const session = new Session(
      {
        request: (s, frame, context) => this.dispatcher.clientRequest(s, frame, context),
        notification: (s, frame) => this.dispatcher.clientNotification(s, frame),
        closed: (s) => this.sessionClosed(s),
        log: this.log,
      },
      this.sharedView,
      identity,
      kind,
    );
    this.live.add(session);
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

  sharedChange(method: string, params: Record<string, unknown> | undefined, server: string): void {
    for (const listener of this.sharedChangeListeners) listener(method, params, { remote: false, server });
  }

  /**
   * A change another replica saw on its shared connections (src/shared/change-fanout.ts): told to the clients served
   * by this replica's shared connections as if seen here. A session whose view does not hold this replica's shared
   * connection of `server` (its own process of it) is not told: what changed is not what it sees.
   */
  relayChange(method: string, params: Record<string, unknown> | undefined, server: string): void {
    const shared = this.upstreams.find((u) => u.name === server);
    if (!shared) return;
    const uri = String(params?.uri);
    const updated = method === 'notifications/resources/updated';
    for (const session of this.live) {
      if (!session.view.serves(shared) || session.kind.transient || session.era === 'modern') continue;
      if (!updated || session.isSubscribed(uri)) void session.notify(method, params);
    }
    for (const listener of this.sharedChangeListeners) listener(method, params, { remote: true, server });
  }

  get sessionCount(): number {
    return this.live.size;
  }

  /** A single upstream is mirrored, so wrapping a server changes nothing the client can see. */
  serverInfo(upstreams: readonly Upstream[] = this.upstreams): Implementation {
    const only = single(upstreams);
    return only?.serverInfo ?? GATEWAY_INFO;
  }

  instructions(upstreams: readonly Upstream[] = this.upstreams): string | undefined {
    const only = single(upstreams);
    if (only) return only.instructions;
    const parts = upstreams.filter((u) => u.instructions).map((u) => `## ${u.name}\n${u.instructions}`);
    return parts.length ? parts.join('\n\n') : undefined;
  }

  /**
   * The union of what the upstreams offer. An upstream not yet connected might offer anything, so while any is
   * unknown the proxy declares every feature it can forward.
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
    // Extensions (SEP-1724) the upstreams declare, MCP Apps' among them, are theirs to offer through the proxy; the
    // first upstream that declares one gives its settings.
    const extensions = Object.assign({}, ...known.map((c) => c.extensions ?? {}).reverse());
    if (Object.keys(extensions).length) capabilities.extensions = extensions;
    return capabilities;
  }

  ownerOf(upstream: Upstream): Session | undefined {
    return this.owners.get(upstream);
  }

  /** The client of a one-client gateway, once it has introduced itself. */
  theClient(): Session | undefined {
    for (const session of this.live) if (session.isInitialized && !session.isClosed) return session;
    return undefined;
  }

  /** Resolves once some client has finished its handshake, or the request is cancelled. */
  clientConnected(signal: Signal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.awaitingClient.delete(done);
        stopListening();
        resolve();
      };
      const stopListening = onAbort(signal, done);
      this.awaitingClient.add(done);
    });
  }

  clientArrived(): void {
    for (const wake of [...this.awaitingClient]) wake();
  }

  /**
   * A client has introduced itself. Upstreams learn who it is before it is answered: in one-client mode every
   * upstream is initialized again as the client, in the client's era where the server speaks both; otherwise each
   * isolated server gets a connection of its own for it, and a server of both eras a legacy-era one. The answer
   * mirrors what those upstreams said.
   */
  async initialize(session: Session, params: InitializeRequest['params']): Promise<InitializeAnswer> {
    const identity = identityOf(params);
    let connections: readonly Upstream[] = this.upstreams;
    if (this.oneClient) {
      await this.withinStartup(Promise.all(this.upstreams.map((u) => u.reconnectAs(identity, { legacy: true }))));
    } else {
      connections = await this.sessionConnections(session, identity);
    }
    const protocolVersion = single(connections)?.protocolVersion;
    const instructions = this.instructions(connections);
    return {
      serverInfo: this.serverInfo(connections),
      capabilities: this.capabilities(connections),
      ...(instructions !== undefined ? { instructions } : {}),
      ...(protocolVersion !== undefined ? { protocolVersion } : {}),
    };
  }

  /**
   * A 2025 session another replica held, adopted here (src/http/session-routing.ts): its client's `initialize` is
   * replayed to the relay as if it had just come, its answer dropped (the client had it from the first replica).
   */
  async replayInitialize(session: Session, params: InitializeRequest['params']): Promise<void> {
    session.pin('legacy');
    session.hello = helloOf(params);
    await this.initialize(session, params);
    session.initialized();
  }

  private makeUpstream(server: ServerConfig, identity?: ClientIdentity): Upstream {
    return new Upstream(
      server,
      {
        request: (upstream, frame, reply) => this.dispatcher.upstreamRequest(upstream, frame, reply),
        notification: (upstream, frame) => this.dispatcher.upstreamNotification(upstream, frame),
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
      this.offload.reservedNames,
      (upstream, tool) => this.offload.decorateTool(upstream.name, tool),
      (upstream, tool, shown) => this.offload.forAppHosts(upstream.name, tool, shown),
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
   * The connections that serve a legacy client's session, one per server: the shared one, a legacy-era one for a
   * server of both eras, or one of its own (server-pool.ts). Its own are started before the client is answered.
   */
  private async sessionConnections(session: Session, identity: ClientIdentity): Promise<readonly Upstream[]> {
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

  private sessionClosed(session: Session): void {
    this.live.delete(session);
    if (session.view === this.sharedView) return;
    for (const upstream of session.view.upstreams) {
      if (this.owners.get(upstream) === session) this.owners.delete(upstream);
    }
    const released = Promise.all(this.pools.map((pool) => pool.release(session.id))).then(() => undefined);
    this.releasing.add(released);
    void released.finally(() => this.releasing.delete(released));
  }

  /**
   * An upstream's lists changed: every view it is part of is merged again, and the sessions of a view whose merged
   * list really changed are told. A session's own connection changes only its view. When the upstream itself
   * announced the change (its list_changed), its clients are told even if the lists read back the same: a relay
   * passes the server's word on (what changed may be nothing the list shows), while a reconnect that lists the same
   * again tells nobody.
   */
  private catalogChanged(upstream: Upstream, kinds: CatalogKind[], announced = false): void {
    const views = new Map<SessionView, Session[]>();
    if (!this.owners.has(upstream) && this.sharedView.serves(upstream)) views.set(this.sharedView, []);
    for (const session of this.live) {
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
      for (const method of changed) for (const session of members) void session.notify(method);
      if (view === this.sharedView) for (const method of changed) this.sharedChange(method, undefined, upstream.name);
    }
  }
}

function single(upstreams: readonly Upstream[]): Upstream | undefined {
  return upstreams.length === 1 ? upstreams[0] : undefined;
}
