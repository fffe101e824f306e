import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { nameFromPackage } from '../config/server-name.js';
import type { RequestEnvelope } from '../protocol/envelope.js';
import { CancelledError, ConnectionClosedError, RpcError, timedOut, unavailable } from '../rpc/errors.js';
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
  envelopeMeta,
  HandshakeError,
  type Connection,
  type DiscoverAnswer,
  type EraPlan,
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
import { UpstreamLogin } from './oauth/upstream-login.js';
import { LoginRequiredError } from './oauth/login-required.js';
import { forHop, paramHeadersOf, type Hop } from './hop.js';
import { RestartSchedule } from './restart-schedule.js';
import { TaskOrigins } from './task-origins.js';

/** Starting a server (npx may download it first) and listing it can take longer than one call. */
const MIN_CONNECT_TIMEOUT_MS = 30_000;

/** Requests the modern era replaced by the `subscriptions/listen` filter. */
const SUBSCRIPTION_METHODS = new Set(['resources/subscribe', 'resources/unsubscribe']);

/**
 * A process that has not carried a client's request is not kept waiting for (it may ignore the end of its stdin
 * for the whole exit grace): nothing of a client's can be lost with it.
 */
const UNUSED_EXIT_GRACE_MS = 100;

/** `needs-login`: a remote server that wants an OAuth login; it is connected once `mcp-offload login` has run. */
export type UpstreamState = 'connecting' | 'up' | 'down' | 'failed' | 'needs-login' | 'stopped';

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
  signal?: AbortSignal;
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
}

/**
 * One upstream MCP server: its connection, its catalog, and its supervision. A connection that closes unexpectedly
 * is restarted with exponential backoff; the proxy never dies with it.
 */
export class Upstream {
  readonly side = 'server' as const;
  state: UpstreamState = 'connecting';
  catalog: UpstreamCatalog = emptyCatalog();
  /** Why the upstream is not up, for error messages and /readyz. */
  lastError?: string;
  restarts = 0;
  /** Which tool started each task the server runs (tasks extension): a task's result is offloaded as its tool's. */
  readonly tasks = new TaskOrigins();
  /** The requests this upstream has in flight to clients, by id (its cancellations find them here). */
  readonly calls = new Map<unknown, { cancel(reason: unknown): void }>();
  /** The server refused the legacy era this connection tried for its client, and the connection stopped. */
  refusedLegacy = false;
  /** The outcome of the last check that an upstream that let a request time out still answers. */
  lastLivenessCheck?: Promise<'alive' | 'hung'>;

  private connection?: Connection;
  /** The connection has carried a client's request: it gets the whole exit grace when it is closed (closeUnused). */
  private carried = false;
  /** Counts connection attempts, so an attempt overtaken by a re-initialization (reconnectAs) drops its result. */
  private attempt = 0;
  private readonly schedule: RestartSchedule;
  private restartTimer?: NodeJS.Timeout;
  private upSince = 0;
  private stopping = false;
  private refreshing: Promise<void> = Promise.resolve();
  private readonly waiters = new Set<() => void>();
  private logLevel?: string;
  private readonly subscriptions = new Set<string>();
  private checking?: Promise<void>;
  /** What the last connection found; kept while the upstream is down (the next one will most likely be the same). */
  private last?: Pick<Connection, 'era' | 'capabilities' | 'serverInfo' | 'instructions' | 'protocolVersion'>;
  /** A modern upstream's change notifications come on this stream (`subscriptions/listen`). */
  private readonly listen: ModernListen;
  /** This connection speaks the legacy era to a server of both eras, for the legacy client it serves. */
  private legacyForClient = false;
  /** What follows when the server refuses the legacy era (see followLegacyClient). */
  private onLegacyRefused: 'modern' | 'stop' = 'modern';
  /** The connection is being opened again as the client (reconnectAs). */
  private reintroducing?: Promise<void>;
  /**
   * The client the first connection was opened as (start), until that client introduces itself: a legacy client's
   * `initialize` finds it introduced already; a 2026-07-28 client that initializes after all, as itself and in the
   * version the server speaks, finds the connection its own (introducedAs).
   */
  private startedFor?: FirstClient;
  private starting: Promise<void> = Promise.resolve();
  /** Why a hung upstream was ended, for the messages that follow. */
  private hung?: string;
  private namedLog: Logger;
  /** A remote server's OAuth: its provider, its token file, and telling "needs a login" from an outage. */
  private readonly login?: UpstreamLogin;
  /** The connection attempt a new login started (see afterLogin). */
  private loggingIn?: Promise<void>;
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
    this.schedule = new RestartSchedule(config.restart);
    if (config.kind === 'http') this.login = new UpstreamLogin(config);
    this.listen = new ModernListen(this, this.log);
  }

  get name(): string {
    return this.config.name;
  }

  get pid(): number | undefined {
    const wire = this.connection?.wire;
    return wire instanceof ProcessWire ? wire.pid : undefined;
  }

  /** The protocol version agreed with the server (`initialize`), or the modern revision spoken. */
  get protocolVersion(): string | undefined {
    return this.connection?.protocolVersion;
  }

  /** The era the server speaks; undefined until it has first been connected. */
  get era(): ProtocolEra | undefined {
    return this.connection?.era ?? this.last?.era;
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

  /** The connection's current open connection, when up (for the relay's own bookkeeping). */
  get connected(): boolean {
    return this.state === 'up' && this.connection !== undefined;
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
    this.starting = this.connect();
    await this.starting;
  }

  /**
   * Initializes the server again, as `identity`: MCP has no re-initialize, so the current connection (or the
   * attempt under way) is closed and a new one opened. Restarts after this keep the identity. Never throws.
   */
  async reconnectAs(identity: ClientIdentity, client: { legacy?: boolean } = {}): Promise<void> {
    const done = this.reintroduce(identity, client);
    // The client's own calls wait for the connection that speaks for it, whatever `whenDown` says: a client that
    // sends a call right behind its `initialize` would otherwise meet the old connection closing.
    this.reintroducing = done;
    try {
      await done;
    } finally {
      if (this.reintroducing === done) this.reintroducing = undefined;
    }
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
    if (this.stopping || this.state === 'failed') return;
    this.identity = identity;
    // The same request would get the same 401: the login, when it comes, connects as this identity.
    if (this.state === 'needs-login') return;
    if (client.legacy && this.era === 'modern') this.followLegacyClient('modern');
    // A modern server learns who the client is with every request (see envelopeMeta): nothing to redo.
    if (this.state === 'up' && this.era === 'modern' && !this.legacyForClient) return;
    clearTimeout(this.restartTimer);
    this.attempt++;
    const previous = this.connection;
    this.connection = undefined;
    if (previous && this.carried) await closeQuietly(previous);
    else if (previous) await this.closeUnused(previous);
    this.schedule.reset();
    this.setState('connecting');
    await this.connect();
  }

  /**
   * Whether the connection opened for a 2026-07-28 client's envelope (`envelope`) already is what that client's own
   * `initialize` (`identity`) would open: a legacy-era server, initialized with the same client and capabilities, in
   * the protocol version the client now asks for.
   */
  private async introducedAs(envelope: ClientIdentity, identity: ClientIdentity): Promise<boolean> {
    await this.starting;
    if (this.state !== 'up' || this.era !== 'legacy' || this.carried) return false;
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
    this.stopping = true;
    this.login?.unwatch();
    clearTimeout(this.restartTimer);
    const connection = this.connection;
    this.connection = undefined;
    this.setState('stopped');
    this.wakeWaiters();
    this.listen.stop();
    if (connection) await closeQuietly(connection);
  }

  /**
   * Relays a client's request (`frame`: its method and params; its id is replaced) and resolves with the upstream's
   * answer frame, result or error as the server sent it. Throws an RpcError fit for the client when there is no
   * answer: the upstream is not available, did not answer in time (the timeout restarts whenever it reports
   * progress), or went away; a CancelledError when `signal` aborted (the upstream was told).
   */
  async send(frame: Frame, options: SendOptions = {}): Promise<Frame> {
    const method = frame.method ?? '';
    const connection = await this.ready(method, options.signal);
    this.carried = true;
    const modern = connection.era === 'modern';
    if (modern && SUBSCRIPTION_METHODS.has(method)) return this.subscribeModern(frame);
    const outgoing = forHop(frame, this.hopOf(connection), options.envelope);
    const timeout = options.timeoutMs ?? this.config.timeoutMs;
    const headers =
      modern && this.config.kind === 'http' && method === 'tools/call'
        ? paramHeadersOf(frame, this.catalog.tools)
        : undefined;
    const request: RequestOptions = {
      timeoutMs: timeout,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onprogress ? { onprogress: options.onprogress } : {}),
      ...(headers ? { send: { headers } } : {}),
    };
    const authBefore = (connection.wire as RemoteWire).authFailure;
    try {
      const answer = await connection.peer.request(outgoing, request);
      if (answer.isError && this.login) this.checkLogin(connection, authBefore);
      const result = answer.message.result;
      if (method === 'tools/call' && result) this.tasks.noteStarted(result, String(frame.params.name));
      return answer;
    } catch (error) {
      if (error instanceof TimeoutError) {
        this.checkAlive();
        throw timedOut(`upstream "${this.name}" did not answer ${method} within ${timeout} ms`);
      }
      throw this.describe(error, method);
    }
  }

  /**
   * A remote server's request failed on its authorization (the wire answered it with an error frame): tokens that were
   * refused and could not be refreshed need a login, not more requests.
   */
  private checkLogin(connection: Connection, before: Error | undefined): void {
    const after = (connection.wire as RemoteWire).authFailure;
    if (after === undefined || after === before) return;
    const needed = this.login?.failure(after);
    if (!needed) return;
    this.needLogin(needed);
    throw unavailable(needed.message);
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
    const { error, result } = answer.message;
    if (error) throw new RpcError(error.code, error.message, error.data);
    return answer.blobs.deliver(result ?? {});
  }

  /** A notification for the server (a client's roots changed). */
  async notify(frame: Frame): Promise<void> {
    const connection = this.connection;
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
  async loginWritten(): Promise<boolean> {
    if (this.loggingIn) await this.loggingIn;
    else if (this.state === 'needs-login' && this.login?.changedSinceWatch()) await this.afterLogin();
    return this.state === 'up';
  }

  private hopOf(connection: Connection): Hop {
    return {
      era: connection.era,
      protocolVersion: connection.protocolVersion,
      identity: this.identity,
      ...(this.logLevel !== undefined ? { logLevel: this.logLevel } : {}),
    };
  }

  /**
   * `resources/subscribe` and `resources/unsubscribe` do not exist in the modern era: a server sends
   * `notifications/resources/updated` for the URIs named in the `subscriptions/listen` filter, so the filter is
   * what changes. The gateway records the subscription itself (trackSubscription), and is answered as the server
   * would have answered the request.
   */
  private async subscribeModern(frame: Frame): Promise<Frame> {
    this.trackSubscription(String(frame.params.uri), frame.method === 'resources/subscribe');
    if (this.connection) await this.listen.open(this.connection);
    return Frame.result(0, {});
  }

  /**
   * After a timeout: a server that still answers ping is only slow; one that does not is hung, and is ended so
   * supervision starts a fresh one.
   */
  private checkAlive(): void {
    const connection = this.connection;
    if (this.checking || this.state !== 'up' || !connection) return;
    const timeout = Math.min(Math.max(this.config.timeoutMs, 1000), 10_000);
    // The modern era has no ping; asking the server what it offers is as cheap.
    const question =
      connection.era === 'modern'
        ? Frame.request(0, 'server/discover', { _meta: envelopeMeta(this.identity, connection.protocolVersion) })
        : Frame.request(0, 'ping');
    const check = connection.peer.request(question, { timeoutMs: timeout }).then(
      () => 'alive' as const,
      async () => {
        if (this.connection !== connection) return 'alive' as const;
        this.hung = `it stopped answering (no reply to ping within ${timeout} ms after a request timed out)`;
        this.log.warn(`upstream "${this.name}" is hung; restarting it`);
        if (connection.wire instanceof ProcessWire) connection.wire.kill('SIGKILL');
        else await connection.peer.close();
        return 'hung' as const;
      },
    );
    this.checking = check.then(() => undefined).finally(() => (this.checking = undefined));
    this.lastLivenessCheck = check;
  }

  /** `prior`: an era verdict for this attempt only (see endedByProbe). */
  private async connect(prior?: EraPlan['prior']): Promise<void> {
    const attempt = ++this.attempt;
    this.setState(this.state === 'connecting' ? 'connecting' : 'down');
    const timeout = Math.max(this.config.timeoutMs, MIN_CONNECT_TIMEOUT_MS);
    const plan = prior ? { ...this.eraPlan(), prior } : this.eraPlan();
    let connection: Connection;
    try {
      connection = await connect({
        config: this.config,
        identity: this.identity,
        plan,
        handlers: {
          request: (frame) => this.onRequest(frame, attempt),
          notification: (frame) => this.onNotification(frame),
          closed: () => this.onClosed(attempt),
        },
        log: this.log,
        timeoutMs: timeout,
        ...(this.login ? { login: this.login } : {}),
      });
    } catch (error) {
      await this.connectFailed(error, attempt, plan);
      return;
    }
    if (this.stopping || attempt !== this.attempt) {
      await this.closeUnused(connection);
      return;
    }
    if (connection.lateDiscover && connection.era === 'legacy') {
      await this.closeUnused(connection);
      this.startAgainModern(connection.lateDiscover);
      await this.connect();
      return;
    }
    this.connection = connection;
    this.carried = false;
    this.last = connection;
    if (connection.era === 'legacy' && plan.era.protocol === 'auto') rememberLegacy(this.config);
    if (connection.era === 'modern' && connection.discover && plan.era.protocol === 'auto')
      rememberModern(this.config, connection.discover);
    if (this.legacyForClient && connection.era === 'legacy') rememberLegacyToo(this.config, true);
    if (this.config.nameFromServerInfo) this.adoptServerName(connection.serverInfo?.name);
    try {
      // Through the refresh queue: a list_changed that arrives while this first listing runs (a server
      // registering tools once it is initialized) is applied after it, not overwritten by it.
      const initial = this.refreshing.then(async () => {
        this.catalog = await this.fetchLists(connection, CATALOG_KINDS, timeout);
      });
      this.refreshing = initial.catch(() => undefined);
      await initial;
    } catch (error) {
      if (attempt !== this.attempt) return;
      this.lastError = `listing its tools, prompts and resources failed: ${errorText(error)}`;
      this.log.error({ err: this.lastError }, `upstream "${this.name}" connected but could not be listed`);
      this.connection = undefined;
      await this.closeUnused(connection);
      this.afterFailure();
      return;
    }
    if (attempt !== this.attempt) return;
    this.upSince = Date.now();
    this.lastError = undefined;
    this.log.info(
      {
        tools: this.catalog.tools.length,
        processId: this.pid,
        serverInfo: this.serverInfo?.name,
        protocolVersion: this.protocolVersion,
      },
      `upstream "${this.name}" is up`,
    );
    this.setState('up');
    this.wakeWaiters();
    this.hooks.catalogChanged(this, [...CATALOG_KINDS]);
    await this.restoreSessionState(connection);
  }

  private async connectFailed(error: unknown, attempt: number, plan: EraPlan): Promise<void> {
    if (attempt !== this.attempt) return;
    const failure = this.login?.failure(error);
    if (error instanceof LoginRequiredError || failure) {
      this.needLogin(error instanceof LoginRequiredError ? error : failure!);
      return;
    }
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
        this.lastError = `it refuses the legacy era (${errorText(error)})`;
        await this.stop();
        return;
      }
      await this.connect();
      return;
    }
    if (error instanceof HandshakeError && error.lateDiscover) {
      // Answering the probe late made it a modern server, which then refused `initialize`.
      this.startAgainModern(error.lateDiscover);
      await this.connect();
      return;
    }
    if (this.endedByProbe(error, plan)) {
      // The process ended on the question (servers built on rmcp do): a legacy server, asked nothing next time.
      this.log.info(
        { err: errorText(error) },
        `upstream "${this.name}" ended on the server/discover question: taken for a legacy server; starting it again`,
      );
      await this.connect({ kind: 'legacy' });
      return;
    }
    this.lastError = errorText(error);
    if (error instanceof SpawnError && error.permanent) {
      // A command that does not exist will not exist on the next try either.
      const source = this.config.source;
      this.log.error(
        { err: this.lastError, ...(source ? { config: `${source.file}:${source.line}:${source.column}` } : {}) },
        `upstream "${this.name}" cannot be started; it is not retried`,
      );
      this.giveUp();
      return;
    }
    this.log.error({ err: this.lastError }, `could not connect to upstream "${this.name}"`);
    this.afterFailure();
  }

  /** Lists `kinds` in full over `connection` (each page of each list, with this hop's envelope when modern). */
  private fetchLists(connection: Connection, kinds: readonly CatalogKind[], timeoutMs: number) {
    return fetchCatalog(
      async (method, params) => {
        const outgoing = forHop(Frame.request(0, method, params), this.hopOf(connection), undefined);
        const answer = await connection.peer.request(outgoing, { timeoutMs });
        const { error, result } = answer.message;
        if (error) throw new RpcError(error.code, error.message, error.data);
        return answer.blobs.deliver(result ?? {});
      },
      connection.capabilities,
      kinds,
    );
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

  /**
   * How this connection finds the server's era: as configured (`protocol`), and for `auto` without a probe when
   * the server is known already. The built-in browser backend is the proxy's own legacy server.
   */
  private eraPlan(): EraPlan {
    if (this.legacyForClient) return { era: { protocol: 'legacy' } };
    const protocol = this.config.kind === 'abp' ? 'legacy' : (this.config.protocol ?? 'auto');
    const era: EraChoice = {
      protocol,
      ...(this.config.kind === 'stdio' && this.config.probeTimeoutMs !== undefined
        ? { probeTimeoutMs: this.config.probeTimeoutMs }
        : {}),
    };
    const prior = protocol === 'auto' ? verdictOf(this.config) : undefined;
    return prior ? { era, prior } : { era };
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
    const connection = this.connection;
    this.hooks.request(this, frame, (answer) => {
      // An answer for a connection that is gone has nobody to go to.
      if (attempt !== this.attempt || !connection) return;
      void connection.peer.answer(frame.id!, answer).catch(() => undefined);
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
      const connection = this.connection;
      if (!connection) return;
      try {
        const fresh = await this.fetchLists(connection, kinds, Math.max(this.config.timeoutMs, MIN_CONNECT_TIMEOUT_MS));
        for (const kind of kinds) (this.catalog[kind] as unknown[]) = fresh[kind];
        this.hooks.catalogChanged(this, kinds, true);
      } catch (error) {
        this.log.warn({ err: errorText(error), kinds }, 'could not refresh the catalog');
      }
    });
  }

  private onClosed(attempt: number): void {
    const connection = this.connection;
    if (attempt !== this.attempt || !connection) return;
    // Its questions to clients have nobody to answer to any more.
    for (const call of this.calls.values()) call.cancel(`upstream "${this.name}" went away`);
    this.calls.clear();
    this.connection = undefined;
    this.listen.stop();
    if (this.stopping) return;
    const exit = connection.wire instanceof ProcessWire ? connection.wire.exit : undefined;
    this.lastError = this.hung
      ? this.hung
      : exit
        ? `the process exited (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})` +
          (exit.stderrTail.length ? `; last stderr: ${exit.stderrTail.slice(-3).join(' | ')}` : '')
        : 'the connection closed';
    this.hung = undefined;
    this.log.warn({ err: this.lastError }, `upstream "${this.name}" went down`);
    if (Date.now() - this.upSince > 10_000) this.schedule.reset();
    this.afterFailure();
  }

  private afterFailure(): void {
    if (this.stopping) return;
    const delay = this.schedule.next();
    if (delay === undefined) {
      this.log.error({ attempts: this.schedule.attempts }, `giving up on upstream "${this.name}"`);
      this.giveUp();
      return;
    }
    this.setState('down');
    this.log.info({ delayMs: delay, attempt: this.schedule.attempts }, `restarting upstream "${this.name}"`);
    this.restartTimer = setTimeout(() => {
      this.restarts++;
      void this.connect();
    }, delay);
    this.restartTimer.unref();
  }

  /**
   * The server wants a login the proxy cannot do: no restarts (they would get the same 401), no tools, calls answered
   * with the command to run; the token file is watched, and the login that writes it brings the server up.
   */
  private needLogin(error: LoginRequiredError): void {
    if (this.stopping) return;
    clearTimeout(this.restartTimer);
    const connection = this.connection;
    this.connection = undefined;
    if (connection) void closeQuietly(connection);
    const first = this.state !== 'needs-login';
    // Said once, not on every call or look at the file: the client hears it with each call it routes here.
    if (this.lastError !== error.message) this.log.warn({ command: error.command }, error.message);
    this.lastError = error.message;
    this.catalog = emptyCatalog();
    this.setState('needs-login');
    this.wakeWaiters();
    if (first) this.hooks.catalogChanged(this, [...CATALOG_KINDS]);
    this.login?.watch(() => void this.afterLogin());
  }

  /**
   * The token file changed while the server waited for a login: connect with what it holds now. The watch and a
   * call may both notice; they share one attempt.
   */
  private afterLogin(): Promise<void> {
    if (this.loggingIn) return this.loggingIn;
    if (this.stopping || this.state !== 'needs-login') return Promise.resolve();
    this.login?.unwatch();
    this.log.info(`the token file of upstream "${this.name}" changed; connecting`);
    this.schedule.reset();
    this.loggingIn = this.connect().finally(() => (this.loggingIn = undefined));
    return this.loggingIn;
  }

  private giveUp(): void {
    this.catalog = emptyCatalog();
    this.setState('failed');
    this.wakeWaiters();
    this.hooks.catalogChanged(this, [...CATALOG_KINDS]);
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

  private async ready(method: string, signal?: AbortSignal): Promise<Connection> {
    const current = this.connection;
    if (this.state === 'up' && current) return current;
    if (this.reintroducing) {
      await this.reintroducing;
      return this.ready(method, signal);
    }
    if (this.loggingIn) {
      await this.loggingIn;
      if (this.state === 'up') return this.ready(method, signal);
    }
    if (this.state === 'needs-login') {
      // A login that has just written the file is used by this call, not only by the next poll.
      if (this.login?.changedSinceWatch()) {
        await this.afterLogin();
        if ((this.state as UpstreamState) === 'up') return this.ready(method, signal);
      }
      throw unavailable(this.lastError ?? `upstream "${this.name}" needs a login`);
    }
    const why = `upstream "${this.name}" is not available${this.lastError ? ` (${this.lastError})` : ''}`;
    if (this.state === 'failed' || this.state === 'stopped' || this.config.whenDown === 'error') {
      throw unavailable(
        `${why}${this.state === 'down' || this.state === 'connecting' ? '; it is being restarted' : ''}`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(unavailable(`${why}; waited ${this.config.timeoutMs} ms for it to come back before ${method}`));
      }, this.config.timeoutMs);
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiters.delete(wake);
        clearTimeout(timer);
        reject(new CancelledError(signal?.reason ?? 'request cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(wake);
    });
    return this.ready(method, signal);
  }

  private wakeWaiters(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  private setState(state: UpstreamState): void {
    if (this.state === state) return;
    this.state = state;
    this.hooks.stateChanged(this);
  }

  private describe(error: unknown, method: string): Error {
    if (error instanceof RpcError || error instanceof CancelledError) return error;
    // Tokens that were refused and could not be refreshed: a login, not a restart, brings the server back.
    const needed = this.login?.failure(error);
    if (needed) {
      this.needLogin(needed);
      return unavailable(needed.message);
    }
    if (error instanceof ConnectionClosedError) {
      const why = this.lastError ?? 'the connection closed';
      return unavailable(`upstream "${this.name}" failed while handling ${method}: ${why}; it is being restarted`);
    }
    return error instanceof Error ? error : new Error(String(error));
  }

  /**
   * Closes a connection that carried no client's request: the one opened before the first client introduced
   * itself, closed so the server meets the client (reconnectAs), or an attempt overtaken or failed.
   */
  private async closeUnused(connection: Connection): Promise<void> {
    const { wire } = connection;
    if (wire instanceof ProcessWire) {
      const configured = this.config.kind === 'stdio' ? this.config.exitGraceMs : undefined;
      await wire.close(Math.min(UNUSED_EXIT_GRACE_MS, configured ?? UNUSED_EXIT_GRACE_MS)).catch(() => undefined);
    }
    await closeQuietly(connection);
  }
}

async function closeQuietly(connection: Connection): Promise<void> {
  await connection.peer.close().catch(() => undefined);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
