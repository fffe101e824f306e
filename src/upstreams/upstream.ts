import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { nameFromPackage } from '../config/server-name.js';
import type { RequestEnvelope } from '../protocol/envelope.js';
import { Codes, RpcError, timedOut } from '../rpc/errors.js';
import type { Signal } from '../rpc/cancellation.js';
import { keyOf, TimeoutError, type RequestOptions } from '../rpc/peer.js';
import type { ProtocolEra } from '../protocol/versions.js';
import { ProcessWire, SpawnError } from '../transports/process.js';
import { Frame } from '../wire/frame.js';
import { CATALOG_KINDS, emptyCatalog, fetchCatalog, type CatalogKind, type UpstreamCatalog } from './catalog-fetch.js';
import {
  PROXY_IDENTITY,
  sameClient,
  type ClientIdentity,
  type EraChoice,
  type FirstClient,
} from './client-identity.js';
import {
  connect,
  HandshakeError,
  type Connection,
  type DiscoverAnswer,
  type EraPlan,
  type PriorEra,
} from './connect.js';
import {
  followsLegacyClients,
  rememberLegacy,
  rememberLegacyToo,
  rememberModern,
  speaksLegacyToo,
  verdictOf,
} from './era-verdicts.js';
import { ModernListen } from './modern-listen.js';
import type { RemoteWire } from './remote.js';
import { forHop, paramHeadersOf, type Hop } from './hop.js';
import { usableTools } from './param-headers.js';
import { errorText, Supervisor, type Refusal, type SupervisorHost, type UpstreamState } from './supervisor.js';
import { TaskOrigins } from './task-origins.js';

/** Starting a server (npx may download it first) and listing it can take longer than one call. */
const MIN_CONNECT_TIMEOUT_MS = 30_000;

/** Requests the modern era replaced by the `subscriptions/listen` filter. */
const SUBSCRIPTION_METHODS = new Set(['resources/subscribe', 'resources/unsubscribe']);

export type { UpstreamState } from './supervisor.js';

export interface UpstreamHooks {
  /** A request from the upstream to a client (sampling, elicitation, roots): `reply` answers it on its connection. */
  request(upstream: Upstream, frame: Frame, reply: (answer: Frame) => void): void;
  /** A notification for a client (logging, a resource update, progress of a task, ...). */
  notification(upstream: Upstream, frame: Frame): void;
  /**
   * The upstream's lists of these kinds were fetched again. `announced`: because the server said they changed (its
   * list_changed), not because the proxy (re)connected; a relay passes such an announcement on even when the lists
   * read back the same.
   */
  catalogChanged(upstream: Upstream, kinds: CatalogKind[], announced?: boolean): void;
  stateChanged(upstream: Upstream): void;
}

export interface SendOptions {
  signal?: Signal;
  /** Progress of the request; given, the upstream gets a progress token of the proxy's (one per request). */
  onprogress?: (params: Record<string, unknown>) => void;
  /** Overrides the server's timeout. */
  timeoutMs?: number;
  /**
   * Who the downstream request comes from (a modern client's per-request envelope; for a legacy client, what it
   * said in `initialize`). A modern upstream gets it with the request; a legacy one learnt it, if at all, in
   * `initialize`.
   */
  envelope?: RequestEnvelope;
  /** The server ended the request's stream to be resumed (see the wire's SendOptions.onpause). */
  onpause?: (retryMs: number | undefined, resume?: () => void) => void;
  /** HTTP headers of this request, for an upstream over HTTP (a traced call's `traceparent`). */
  headers?: Record<string, string>;
}

/**
 * One upstream MCP server: its catalog, its era, what clients set up on it (log level, subscriptions), and the
 * requests relayed to it. The life of its connections (restarts, logins, hung servers) is its Supervisor's.
 */
export class Upstream {
  readonly side = 'server' as const;
  catalog: UpstreamCatalog = emptyCatalog();
  /** Which tool started each task the server runs (tasks extension): a task's result is offloaded as its tool's. */
  readonly tasks = new TaskOrigins();
  /** The requests this upstream has in flight to clients, by id (its cancellations find them here). */
  readonly calls = new Map<unknown, { cancel(reason: unknown): void }>();
  /** The server refused the legacy era this connection tried for its client, and the connection stopped. */
  refusedLegacy = false;
  /** Tools the last listing left out for their invalid x-mcp-header declarations (SEP-2243), with the reason. */
  private unusableTools = new Map<string, string>();

  private readonly supervisor: Supervisor;
  private refreshing: Promise<void> = Promise.resolve();
  private logLevel?: string;
  private readonly subscriptions = new Set<string>();
  /** What the last connection found; kept while the upstream is down (the next one will most likely be the same). */
  private last?: Pick<Connection, 'era' | 'capabilities' | 'serverInfo' | 'instructions' | 'protocolVersion'>;
  /** A modern upstream's change notifications come on this stream (`subscriptions/listen`). */
  private readonly listen: ModernListen;
  /** This connection speaks the legacy era to a server of both eras, for the legacy client it serves. */
  private legacyForClient = false;
  /** What follows when the server refuses the legacy era (see followLegacyClient). */
  private onLegacyRefused: 'modern' | 'stop' = 'modern';
  /**
   * The client the first connection was opened as (start), until that client introduces itself: a legacy client's
   * `initialize` finds it introduced already; a 2026-07-28 client that initializes after all, as itself and in the
   * version the server speaks, finds the connection its own (introducedAs).
   */
  private startedFor?: FirstClient;
  private starting: Promise<void> = Promise.resolve();
  private namedLog: Logger;
  /**
   * Logs under the upstream's current name: transports get this one, so the lines of a process started before the
   * server's name was known (see adoptServerName) carry the name it got.
   */
  readonly log: Logger = new Proxy({} as Logger, {
    get: (_target, key) => {
      const value: unknown = Reflect.get(this.namedLog, key);
      return typeof value === 'function' ? value.bind(this.namedLog) : value;
    },
  });

  constructor(
    readonly config: ServerConfig,
    private readonly hooks: UpstreamHooks,
    private readonly baseLog: Logger,
    /** Who this connection introduces itself as: the proxy when shared, the client when it serves one. */
    private identity: ClientIdentity = PROXY_IDENTITY,
  ) {
    this.namedLog = baseLog.child({ server: config.name });
    this.supervisor = new Supervisor(this.host());
    this.listen = new ModernListen(this, this.log);
  }

  get name(): string {
    return this.config.name;
  }

  get state(): UpstreamState {
    return this.supervisor.state;
  }

  /** Why the upstream is not up, for error messages and /readyz. */
  get lastError(): string | undefined {
    return this.supervisor.lastError;
  }

  get restarts(): number {
    return this.supervisor.restarts;
  }

  /** The outcome of the last check that an upstream that let a request time out still answers. */
  get lastLivenessCheck(): Promise<'alive' | 'hung'> | undefined {
    return this.supervisor.lastLivenessCheck;
  }

  get pid(): number | undefined {
    const wire = this.supervisor.connection?.wire;
    return wire instanceof ProcessWire ? wire.pid : undefined;
  }

  /** The protocol version agreed with the server (`initialize`), or the modern revision spoken. */
  get protocolVersion(): string | undefined {
    return this.supervisor.connection?.protocolVersion;
  }

  /** The era the server speaks; undefined until it has first been connected. */
  get era(): ProtocolEra | undefined {
    return this.supervisor.connection?.era ?? this.last?.era;
  }

  get capabilities(): ServerCapabilities | undefined {
    return this.last?.capabilities;
  }

  get serverInfo(): Implementation | undefined {
    return this.last?.serverInfo;
  }

  get instructions(): string | undefined {
    return this.last?.instructions;
  }

  /** Whether there is an open connection (for the relay's own bookkeeping). */
  get connected(): boolean {
    return this.state === 'up' && this.supervisor.connection !== undefined;
  }

  /**
   * The first connection attempt. Never throws: a failure is logged and retried in the background. With `client`,
   * the connection is opened as that client: a legacy one as reconnectAs would open it again for it (its
   * reconnectAs then only waits for this), a modern one as it would open a legacy server itself.
   */
  async start(client?: FirstClient): Promise<void> {
    if (client) {
      this.identity = client.identity;
      this.startedFor = client;
      if (client.legacy) this.followLegacyClient('modern');
    }
    this.starting = this.supervisor.connect();
    await this.starting;
  }

  /**
   * Initializes the server again, as `identity`: MCP has no re-initialize, so the current connection (or the
   * attempt under way) is closed and a new one opened. Restarts after this keep the identity. Never throws.
   */
  async reconnectAs(identity: ClientIdentity, client: { legacy?: boolean } = {}): Promise<void> {
    // The client's own calls wait for the connection that speaks for it, whatever `whenDown` says: a client that
    // sends a call right behind its `initialize` would otherwise meet the old connection closing.
    await this.supervisor.holdCalls(this.reintroduce(identity, client));
  }

  private async reintroduce(identity: ClientIdentity, client: { legacy?: boolean }): Promise<void> {
    // The first legacy client after a start as one is that client: its `initialize` is the message the start was
    // given (cli/run.ts holds the client's messages until the start is done).
    const first = this.startedFor;
    this.startedFor = undefined;
    if (first?.legacy && client.legacy) {
      this.identity = identity;
      return this.starting;
    }
    if (first && client.legacy && (await this.introducedAs(first.identity, identity))) {
      this.identity = identity;
      return;
    }
    if (this.supervisor.isStopping || this.state === 'failed') return;
    this.identity = identity;
    // The same request would get the same 401: the login, when it comes, connects as this identity.
    if (this.state === 'needs-login') return;
    if (client.legacy && this.era === 'modern') this.followLegacyClient('modern');
    // A modern server learns who the client is with every request (see envelopeMeta): nothing to redo.
    if (this.state === 'up' && this.era === 'modern' && !this.legacyForClient) return;
    await this.supervisor.reopen();
  }

  /**
   * Whether the connection opened for a 2026-07-28 client's envelope (`envelope`) already is what that client's own
   * `initialize` (`identity`) would open: a legacy-era server, initialized with the same client and capabilities, in
   * the protocol version the client now asks for.
   */
  private async introducedAs(envelope: ClientIdentity, identity: ClientIdentity): Promise<boolean> {
    await this.starting;
    if (this.state !== 'up' || this.era !== 'legacy' || this.supervisor.used) return false;
    const asked = identity.protocolVersion;
    return (asked === undefined || asked === this.protocolVersion) && sameClient(envelope, identity);
  }

  /**
   * This connection is for a legacy client of a server that speaks the modern era: it speaks the legacy era, as the
   * client would directly, when the server offers both (a 2025 tool that asks its client something with a
   * server→client request can do so only on a legacy connection). When the server refuses the legacy `initialize`,
   * `otherwise` says what follows: this connection speaks 2026-07-28 after all (the one connection of one-client
   * mode), or it stops, `refusedLegacy` set, for its pool to serve the client from the modern connection it has.
   * Call before start, or before reconnectAs.
   */
  followLegacyClient(otherwise: 'modern' | 'stop'): void {
    if (!followsLegacyClients(this.config)) return;
    this.legacyForClient = true;
    this.onLegacyRefused = otherwise;
  }

  /** Whether this connection speaks the legacy era to a server of both eras for its legacy client. */
  get followsLegacy(): boolean {
    return this.legacyForClient;
  }

  async stop(): Promise<void> {
    this.listen.stop();
    await this.supervisor.stop();
  }

  /**
   * Relays a client's request (`frame`: its method and params; its id is replaced) and resolves with the upstream's
   * answer frame, result or error as the server sent it. Throws an RpcError fit for the client when there is no
   * answer: the upstream is not available, did not answer in time (the timeout restarts whenever it reports
   * progress), or went away; a CancelledError when `signal` aborted (the upstream was told).
   */
  send(frame: Frame, options: SendOptions = {}): Promise<Frame> {
    const now = this.supervisor.readyNow();
    if (now) return this.sendOn(now, frame, options);
    return this.supervisor
      .ready(frame.method ?? '', options.signal)
      .then((connection) => this.sendOn(connection, frame, options));
  }

  private async sendOn(connection: Connection, frame: Frame, options: SendOptions): Promise<Frame> {
    const method = frame.method ?? '';
    const modern = connection.era === 'modern';
    if (modern && SUBSCRIPTION_METHODS.has(method)) return this.subscribeModern(frame);
    const outgoing = forHop(frame, this.hopOf(connection), options.envelope);
    const timeout = options.timeoutMs ?? this.config.timeoutMs;
    const paramHeaders = modern && this.config.kind === 'http' && method === 'tools/call';
    // A lone server is sent calls to names it did not list; one the proxy left out it does not call, by any name.
    const unusable = paramHeaders ? this.unusableTools.get(String(frame.params.name)) : undefined;
    if (unusable !== undefined)
      throw new RpcError(Codes.InvalidParams, `Tool ${String(frame.params.name)} is left out (SEP-2243): ${unusable}`);
    const params = paramHeaders ? paramHeadersOf(frame, this.catalog.tools) : undefined;
    const headers = options.headers ? { ...options.headers, ...params } : params;
    // Member by member, not spread from conditional literals: this runs before every call is written upstream.
    const request: RequestOptions = { timeoutMs: timeout };
    if (options.signal) request.signal = options.signal;
    if (options.onprogress) request.onprogress = options.onprogress;
    if (headers || options.onpause) {
      request.send = {};
      if (headers) request.send.headers = headers;
      if (options.onpause) request.send.onpause = options.onpause;
    }
    const authBefore = (connection.wire as RemoteWire).authFailure;
    try {
      const answer = await connection.peer.request(outgoing, request);
      if (answer.isError && this.supervisor.login) this.supervisor.checkLogin(connection, authBefore);
      const result = answer.message.result;
      if (method === 'tools/call' && result) this.tasks.noteStarted(result, String(frame.params.name));
      return answer;
    } catch (error) {
      if (error instanceof TimeoutError) {
        this.supervisor.checkAlive();
        throw timedOut(`upstream "${this.name}" did not answer ${method} within ${timeout} ms`);
      }
      throw this.supervisor.describe(error, method);
    }
  }

  /**
   * A request of the proxy's own (listing, subscribing, setting the log level): its result, or an RpcError with the
   * server's error.
   */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    timeoutMs?: number,
  ): Promise<Record<string, unknown>> {
    const answer = await this.send(Frame.request(0, method, params), timeoutMs !== undefined ? { timeoutMs } : {});
    return resultOf(answer);
  }

  /** A notification for the server (a client's roots changed). */
  async notify(frame: Frame): Promise<void> {
    const connection = this.supervisor.connection;
    if (this.state !== 'up' || !connection) return;
    await connection.peer.notify(frame).catch((error: unknown) => {
      this.log.debug({ err: String(error) }, `could not forward ${frame.method}`);
    });
  }

  /**
   * Remembered so a restarted upstream gets the same level. The modern era has no `logging/setLevel`: the level
   * goes with every request instead (see envelopeMeta).
   */
  async setLogLevel(level: string): Promise<void> {
    this.logLevel = level;
    if (this.state === 'up' && this.capabilities?.logging && this.era !== 'modern')
      await this.request('logging/setLevel', { level });
  }

  /** Remembered so a restarted upstream keeps sending updates. */
  trackSubscription(uri: string, subscribed: boolean): void {
    if (subscribed) this.subscriptions.add(uri);
    else this.subscriptions.delete(uri);
  }

  /** The resource URIs clients subscribed to on this upstream. */
  get subscribed(): ReadonlySet<string> {
    return this.subscriptions;
  }

  /**
   * For a call to a tool of this server while it waits for a login (its tools are not listed then): a login
   * written since is used at once, not only at the next look at the file. Whether the server is up now.
   */
  loginWritten(): Promise<boolean> {
    return this.supervisor.loginWritten();
  }

  private hopOf(connection: Connection): Hop {
    const hop: Hop = { era: connection.era, protocolVersion: connection.protocolVersion, identity: this.identity };
    if (this.logLevel !== undefined) hop.logLevel = this.logLevel;
    return hop;
  }

  /**
   * `resources/subscribe` and `resources/unsubscribe` do not exist in the modern era: a server sends
   * `notifications/resources/updated` for the URIs named in the `subscriptions/listen` filter, so the filter is
   * what changes. The gateway records the subscription itself (trackSubscription), and is answered as the server
   * would have answered the request.
   */
  private async subscribeModern(frame: Frame): Promise<Frame> {
    this.trackSubscription(String(frame.params.uri), frame.method === 'resources/subscribe');
    const connection = this.supervisor.connection;
    if (connection) await this.listen.open(connection);
    return Frame.result(0, {});
  }

  /** What the supervisor asks of this upstream: what a connection takes, and what follows its ups and downs. */
  private host(): SupervisorHost {
    // The getters read the upstream's current name and identity.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const upstream = this;
    return {
      get name() {
        return upstream.name;
      },
      get identity() {
        return upstream.identity;
      },
      config: this.config,
      log: this.log,
      plan: (prior) => this.plan(prior),
      open: (attempt, plan) => this.open(attempt, plan),
      opened: (connection, plan, attempt) => this.opened(connection, plan, attempt),
      refused: (error, plan) => this.refused(error, plan),
      up: (connection) => this.up(connection),
      closed: () => this.closed(),
      lost: () => this.lost(),
      stateChanged: () => this.hooks.stateChanged(this),
    };
  }

  /**
   * How this connection finds the server's era: as configured (`protocol`), and for `auto` without a probe when
   * the server is known already. The built-in browser backend is the proxy's own legacy server.
   */
  private plan(prior?: PriorEra): EraPlan {
    if (this.legacyForClient) return { era: { protocol: 'legacy' } };
    const protocol = this.config.kind === 'abp' ? 'legacy' : (this.config.protocol ?? 'auto');
    const era: EraChoice = {
      protocol,
      ...(this.config.kind === 'stdio' && this.config.probeTimeoutMs !== undefined
        ? { probeTimeoutMs: this.config.probeTimeoutMs }
        : {}),
    };
    const known = prior ?? (protocol === 'auto' ? verdictOf(this.config) : undefined);
    return known ? { era, prior: known } : { era };
  }

  private open(attempt: number, plan: EraPlan): Promise<Connection> {
    const login = this.supervisor.login;
    return connect({
      config: this.config,
      identity: this.identity,
      plan,
      handlers: {
        request: (frame) => this.onRequest(frame, attempt),
        notification: (frame) => this.onNotification(frame),
        closed: () => this.supervisor.closed(attempt),
      },
      log: this.log,
      timeoutMs: this.connectTimeout,
      ...(login ? { login } : {}),
    });
  }

  private async opened(connection: Connection, plan: EraPlan, attempt: number): Promise<'up' | 'again'> {
    if (connection.lateDiscover && connection.era === 'legacy') {
      this.startAgainModern(connection.lateDiscover);
      return 'again';
    }
    this.last = connection;
    if (connection.era === 'legacy' && plan.era.protocol === 'auto') rememberLegacy(this.config);
    if (connection.era === 'modern' && connection.discover && plan.era.protocol === 'auto')
      rememberModern(this.config, connection.discover);
    if (this.legacyForClient && connection.era === 'legacy') rememberLegacyToo(this.config, true);
    if (this.config.nameFromServerInfo) this.adoptServerName(connection.serverInfo?.name);
    // Through the refresh queue: a list_changed that arrives while this first listing runs (a server registering
    // tools once it is initialized) is applied after it, not overwritten by it.
    const initial = this.refreshing.then(async () => {
      const catalog = await this.fetchLists(connection, CATALOG_KINDS, this.connectTimeout);
      if (this.supervisor.isCurrent(attempt)) this.catalog = catalog;
    });
    this.refreshing = initial.catch(() => undefined);
    await initial;
    return 'up';
  }

  private async refused(error: unknown, plan: EraPlan): Promise<Refusal> {
    if (this.legacyForClient && speaksLegacyToo(this.config) === undefined && !(error instanceof SpawnError)) {
      // The first legacy `initialize` this server got failed: a modern-only server, for the life of the proxy.
      rememberLegacyToo(this.config, false);
      this.legacyForClient = false;
      this.log.info(
        { err: errorText(error) },
        `upstream "${this.name}" does not take a legacy initialize: its legacy clients are served in MCP 2026-07-28, their questions bridged`,
      );
      if (this.onLegacyRefused === 'stop') {
        this.refusedLegacy = true;
        this.listen.stop();
        return 'stopped';
      }
      return { again: undefined };
    }
    if (error instanceof HandshakeError && error.lateDiscover) {
      // Answering the probe late made it a modern server, which then refused `initialize`.
      this.startAgainModern(error.lateDiscover);
      return { again: undefined };
    }
    if (this.endedByProbe(error, plan)) {
      // The process ended on the question (servers built on rmcp do): a legacy server, asked nothing next time.
      this.log.info(
        { err: errorText(error) },
        `upstream "${this.name}" ended on the server/discover question: taken for a legacy server; starting it again`,
      );
      return { again: { kind: 'legacy' } };
    }
    return undefined;
  }

  private async up(connection: Connection): Promise<void> {
    this.log.info(
      {
        tools: this.catalog.tools.length,
        processId: this.pid,
        serverInfo: this.serverInfo?.name,
        protocolVersion: this.protocolVersion,
      },
      `upstream "${this.name}" is up`,
    );
    this.hooks.catalogChanged(this, [...CATALOG_KINDS]);
    await this.restoreSessionState(connection);
  }

  private closed(): void {
    // Its questions to clients have nobody to answer to any more.
    for (const call of this.calls.values()) call.cancel(`upstream "${this.name}" went away`);
    this.calls.clear();
    this.listen.stop();
  }

  private lost(): void {
    this.catalog = emptyCatalog();
    this.hooks.catalogChanged(this, [...CATALOG_KINDS]);
  }

  /** Starting a server (npx may download it first) and listing it can take longer than one call. */
  private get connectTimeout(): number {
    return Math.max(this.config.timeoutMs, MIN_CONNECT_TIMEOUT_MS);
  }

  /**
   * Lists `kinds` in full over `connection` (each page of each list, with this hop's envelope when modern). A
   * 2026-07-28 server over HTTP keeps only the tools whose `x-mcp-header` declarations a call can honor (SEP-2243).
   */
  private async fetchLists(connection: Connection, kinds: readonly CatalogKind[], timeoutMs: number) {
    const catalog = await fetchCatalog(
      async (method, params) => {
        const outgoing = forHop(Frame.request(0, method, params), this.hopOf(connection), undefined);
        return resultOf(await connection.peer.request(outgoing, { timeoutMs }));
      },
      connection.capabilities,
      kinds,
    );
    if (connection.era === 'modern' && this.config.kind === 'http' && kinds.includes('tools')) {
      const unusable = new Map<string, string>();
      catalog.tools = usableTools(catalog.tools, (tool, reason) => {
        unusable.set(tool.name, reason);
        this.log.warn(
          { tool: tool.name, reason },
          `upstream "${this.name}": tool "${tool.name}" is left out, its x-mcp-header declarations are invalid (SEP-2243): ${reason}`,
        );
      });
      this.unusableTools = unusable;
    }
    return catalog;
  }

  /** A wrapped server whose command line named nothing specific is known by its own name, once it has said it. */
  private adoptServerName(serverName: string | undefined): void {
    this.config.nameFromServerInfo = false;
    const name = serverName === undefined ? undefined : nameFromPackage(serverName);
    if (name === undefined || name === this.config.name) return;
    this.log.info(
      `upstream "${this.config.name}" is called "${name}" from now on (its serverInfo.name is "${serverName}")`,
    );
    this.config.name = name;
    this.namedLog = this.baseLog.child({ server: name });
  }

  /** A modern server that started slower than the probe timeout is spoken to in its era from now on. */
  private startAgainModern(discover: DiscoverAnswer): void {
    rememberModern(this.config, discover);
    this.log.info(`upstream "${this.name}" answered server/discover late: a modern server; starting it again`);
  }

  /**
   * A local process asked `server/discover` that did not get connected: it closed during the probe, or later, on the
   * `initialize` that followed a probe it had not answered in time (it read the probe only then). Either way it is
   * tried once more without the probe, a legacy verdict for this attempt only: a server that fails for other reasons
   * fails again, and is supervised as usual.
   */
  private endedByProbe(error: unknown, plan: EraPlan): boolean {
    if (this.config.kind !== 'stdio' || plan.era.protocol !== 'auto' || plan.prior !== undefined) return false;
    return error instanceof HandshakeError && error.probed;
  }

  private onRequest(frame: Frame, attempt: number): void {
    const connection = this.supervisor.connection;
    // Read now: the frame's long literals are let go once the request is handled, and an id may be one of them.
    const id = frame.blobs.restore(frame.id!);
    this.hooks.request(this, frame, (answer) => {
      // An answer for a connection that is gone has nobody to go to.
      if (!this.supervisor.isCurrent(attempt) || !connection) return;
      void connection.peer.answer(id, answer).catch(() => undefined);
    });
  }

  private onNotification(received: Frame): void {
    const frame = this.listen.unwrap(received);
    if (!frame) return;
    switch (frame.method) {
      case 'notifications/tools/list_changed':
        return this.refresh(['tools']);
      case 'notifications/prompts/list_changed':
        return this.refresh(['prompts']);
      case 'notifications/resources/list_changed':
        return this.refresh(['resources', 'resourceTemplates']);
      case 'notifications/cancelled': {
        // The server withdrew a request of its own (to a client).
        const call = this.calls.get(keyOf(frame.params.requestId as never));
        if (call) return call.cancel(frame.params.reason ?? 'cancelled by the server');
        return;
      }
      default:
        this.hooks.notification(this, frame);
    }
  }

  /** Re-lists the given kinds the server announced a change of, one refresh at a time so results apply in order. */
  private refresh(kinds: CatalogKind[]): void {
    this.refreshing = this.refreshing.then(async () => {
      const connection = this.supervisor.connection;
      if (!connection) return;
      try {
        const fresh = await this.fetchLists(connection, kinds, this.connectTimeout);
        for (const kind of kinds) (this.catalog[kind] as unknown[]) = fresh[kind];
        this.hooks.catalogChanged(this, kinds, true);
      } catch (error) {
        this.log.warn({ err: errorText(error), kinds }, 'could not refresh the catalog');
      }
    });
  }

  private async restoreSessionState(connection: Connection): Promise<void> {
    if (connection.era === 'modern') {
      await this.listen.open(connection);
      return;
    }
    if (this.logLevel && this.capabilities?.logging) {
      await this.request('logging/setLevel', { level: this.logLevel }).catch(() => undefined);
    }
    if (this.capabilities?.resources?.subscribe) {
      for (const uri of this.subscriptions) await this.request('resources/subscribe', { uri }).catch(() => undefined);
    }
  }
}

/** A request's result, or an RpcError with the server's error. */
function resultOf(answer: Frame): Record<string, unknown> {
  const { error, result } = answer.message;
  if (error) throw new RpcError(error.code, error.message, error.data);
  return answer.blobs.deliver(result ?? {});
}
