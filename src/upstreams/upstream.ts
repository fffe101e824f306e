import { afterReads, whenReadsAllow } from './after-reads.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import type {
  Client,
  ClientCapabilities,
  ClientContext,
  DiscoverResult,
  Implementation,
  JSONRPCRequest,
  McpSubscription,
  Notification,
  PriorDiscovery,
  Progress,
  ProgressToken,
  Result,
  ServerCapabilities,
  SubscriptionFilter,
} from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { directRequestsOf, relayDirectly } from '../fast-path/direct-requests.js';
import { ProcessTransport, SpawnError } from '../transports/process-transport.js';
import { CONNECTION_CLOSED, ClientError, isConnectionClosed, relayedError, timedOut, unavailable } from './errors.js';
import { CATALOG_KINDS, emptyCatalog, fetchCatalog, type CatalogKind, type UpstreamCatalog } from './catalog-fetch.js';
import { connectClient, type ConnectedClient, type EraPlan } from './transport-factory.js';
import { RestartSchedule } from './restart-schedule.js';
import { ProgressRouter } from './progress-router.js';
import { sendRawNotification, sendRawRequest } from '../protocol/raw-messages.js';
import { Blobs } from '../transports/blob-set.js';
import { nameFromPackage } from '../config/server-name.js';
import {
  identifiedClient,
  PROXY_IDENTITY,
  sameClient,
  type ClientIdentity,
  type FirstClient,
  type EraChoice,
} from './client-identity.js';
import { carryWireError } from '../transports/wire-errors.js';
import { DecoratedTransport } from '../transports/decorated-transport.js';
import { VerbatimResponses } from '../transports/verbatim-responses.js';
import type { ProtocolEra } from '../protocol/versions.js';
import {
  followsLegacyClients,
  isProbeReply,
  lateModernAnswer,
  rememberLegacy,
  rememberLegacyToo,
  rememberModern,
  speaksLegacyToo,
  verdictOf,
} from './era-verdicts.js';
import { RawResults } from './raw-results.js';
import { TaskOrigins } from './task-origins.js';
import { paramHeaders } from './param-headers.js';
import { UpstreamLogin } from './oauth/upstream-login.js';
import { LoginRequiredError } from './oauth/login-required.js';
import { Deadlines } from './deadlines.js';

/** Timeouts are ours (they restart on progress); the SDK's own is set beyond reach. */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

/** Starting a server (npx may download it first) and listing it can take longer than one call. */
const MIN_CONNECT_TIMEOUT_MS = 30_000;

/** A modern upstream's notification stream that ended is opened again after this long. */
const REOPEN_STREAM_DELAY_MS = 1000;

/** Requests the modern era replaced by the `subscriptions/listen` filter. */
const SUBSCRIPTION_METHODS = new Set(['resources/subscribe', 'resources/unsubscribe']);

/** `needs-login`: a remote server that wants an OAuth login; it is connected once `mcp-offload login` has run. */
export type UpstreamState = 'connecting' | 'up' | 'down' | 'failed' | 'needs-login' | 'stopped';

export type ServerRequestExtra = ClientContext;

export interface UpstreamHooks {
  /** A request from the upstream to the client (sampling, elicitation, roots). */
  serverRequest(upstream: Upstream, request: JSONRPCRequest, extra: ServerRequestExtra): Promise<Result>;
  /** A notification for the client (logging, resource updates, ...). */
  notification(upstream: Upstream, notification: Notification): void;
  /**
   * The upstream's lists of these kinds were fetched again. `announced`: because the server said they changed (its
   * list_changed), not because the proxy (re)connected; a relay passes such an announcement on even when the lists
   * read back the same.
   */
  catalogChanged(upstream: Upstream, kinds: CatalogKind[], announced?: boolean): void;
  stateChanged(upstream: Upstream): void;
}

/**
 * An upstream's answer, with the payloads it carried as bytes (stdio upstreams, transports/blob-channel.ts).
 * The caller owns `blobs`: `blobs.deliver(result)` gives the result as the upstream sent it.
 */
export interface UpstreamReply {
  result: Result;
  blobs: Blobs;
}

export interface ForwardOptions {
  signal?: AbortSignal;
  onprogress?: (progress: Progress) => void;
  /** Overrides the server's timeout. */
  timeoutMs?: number;
  /**
   * Who the downstream request comes from (a modern client's per-request `_meta` envelope; for a legacy client,
   * what it said in `initialize`). A modern upstream gets it with the request; a legacy one learnt it, if at all,
   * in `initialize`.
   */
  envelope?: RequestEnvelope;
}

/** The per-request envelope of the 2026-07-28 era, as the downstream request carried it. */
export interface RequestEnvelope {
  clientInfo?: Implementation;
  clientCapabilities?: ClientCapabilities;
  logLevel?: string;
  /** The downstream hop's version; the upstream hop has its own, so it is not passed on. */
  protocolVersion?: string;
}

/**
 * One upstream MCP server: its connection, its catalog, and its supervision. A connection that
 * closes unexpectedly is restarted with exponential backoff; the proxy never dies with it.
 */
export class Upstream {
  state: UpstreamState = 'connecting';
  catalog: UpstreamCatalog = emptyCatalog();
  capabilities?: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
  /** Why the upstream is not up, for error messages and /readyz. */
  lastError?: string;
  restarts = 0;

  private connection?: ConnectedClient;
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
  private readonly progress: ProgressRouter;
  /** The relay lane's call timeouts, on one timer. */
  private readonly relayDeadlines: Deadlines;
  private checking?: Promise<void>;
  /** The proxy's answers to the upstream's requests (the client's answers, relayed). */
  private readonly answers = new VerbatimResponses();
  /** The upstream's results as it sent them (see RawResults). */
  private readonly raw = new RawResults();
  /** Which tool started each task the server runs (tasks extension): a task's result is offloaded as its tool's. */
  readonly tasks = new TaskOrigins();
  /** The era of the last connection; kept while the upstream is down, it is what the next one will most likely be. */
  private lastEra?: ProtocolEra;
  /** A modern upstream's change notifications come on this stream (`subscriptions/listen`). */
  private subscription?: McpSubscription;
  private listening: Promise<void> = Promise.resolve();
  /**
   * This connection speaks the legacy era to a server of both eras, for the legacy client it serves (see
   * followLegacyClient).
   */
  private legacyForClient = false;
  /** What follows when the server refuses the legacy era (see followLegacyClient). */
  private onLegacyRefused: 'modern' | 'stop' = 'modern';
  /** The server refused the legacy era this connection tried for its client, and the connection stopped. */
  refusedLegacy = false;
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
  /** The outcome of the last check that an upstream that let a request time out still answers. */
  lastLivenessCheck?: Promise<'alive' | 'hung'>;
  private namedLog: Logger;
  /** A remote server's OAuth: its provider, its token file, and telling "needs a login" from an outage. */
  private readonly login?: UpstreamLogin;
  /** The connection attempt a new login started (see afterLogin). */
  private loggingIn?: Promise<void>;
  /**
   * Logs under the upstream's current name: transports get this one, so the lines of a process started
   * before the server's name was known (see adoptServerName) carry the name it got.
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
    this.progress = new ProgressRouter(`mcp-offload-${config.name}`);
    this.relayDeadlines = new Deadlines(config.timeoutMs);
    if (config.kind === 'http') this.login = new UpstreamLogin(config);
  }

  get name(): string {
    return this.config.name;
  }

  get pid(): number | undefined {
    const transport = this.connection?.transport;
    return transport instanceof ProcessTransport ? transport.pid : undefined;
  }

  /** The protocol version agreed with the server (`initialize`, or `server/discover` in the modern era). */
  get protocolVersion(): string | undefined {
    return this.connection?.client.getNegotiatedProtocolVersion();
  }

  /** The era the server speaks; undefined until it has first been connected. */
  get era(): ProtocolEra | undefined {
    return this.connection?.client.getProtocolEra() ?? this.lastEra;
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
    // given (cli/run.ts holds the client's messages until the start is done). Its identity as the SDK parsed it is
    // kept for restarts; the two differ only in form (key order, `elicitation: {}` read as form mode).
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
   * the protocol version the client now asks for. On stdio the one client probed with `server/discover` and then fell
   * back to the legacy era; starting its server again would only cost it the server's start.
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
    if (connection) await closeQuietly(connection);
  }

  /**
   * Closes a connection that carried no client's request: the one opened before the first client introduced
   * itself, closed so the server meets the client (reconnectAs), or an attempt overtaken or failed.
   */
  private async closeUnused(connection: ConnectedClient): Promise<void> {
    const { transport } = connection;
    if (transport instanceof ProcessTransport) {
      const configured = this.config.kind === 'stdio' ? this.config.exitGraceMs : undefined;
      await transport.close(Math.min(UNUSED_EXIT_GRACE_MS, configured ?? UNUSED_EXIT_GRACE_MS)).catch(() => undefined);
    }
    await closeQuietly(connection);
  }

  /**
   * Sends a request and returns the upstream's result, or throws an error fit for the client.
   * The timeout restarts whenever the upstream reports progress; when it runs out, or the client
   * cancels, the upstream is told with notifications/cancelled.
   */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: ForwardOptions = {},
  ): Promise<UpstreamReply> {
    const client = await this.ready(method, options.signal);
    this.carried = true;
    const transport = this.connection?.client === client ? this.connection.transport : undefined;
    const channel = transport instanceof ProcessTransport ? transport.blobs : undefined;
    const timeout = options.timeoutMs ?? this.config.timeoutMs;
    const abort = new AbortController();
    let timedOutAfter = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOutAfter = true;
        abort.abort(`timed out after ${timeout} ms`);
      }, timeout);
    };
    const onClientAbort = () => abort.abort(options.signal?.reason ?? 'cancelled by the client');
    options.signal?.addEventListener('abort', onClientAbort, { once: true });
    const modern = client.getProtocolEra() === 'modern';
    if (modern && SUBSCRIPTION_METHODS.has(method)) return this.subscribeModern(method, params, client);
    const progress = this.progress.register((p) => {
      arm();
      options.onprogress?.(p);
    });
    const meta = this.relayedMeta(params, progress.token, modern, options.envelope);
    this.raw.expect(progress.token);
    arm();
    try {
      let result: Result;
      try {
        const headers = modern && method === 'tools/call' ? this.paramHeadersOf(params) : undefined;
        result = await sendRawRequest(
          client,
          { method, params: { ...params, _meta: meta } },
          { signal: abort.signal, timeout: NO_SDK_TIMEOUT, allowInputRequired: true, ...(headers ? { headers } : {}) },
        );
      } catch (error) {
        // A result the SDK would not hand over (a task handle, a shape it rejects) is still the server's answer.
        const sent = this.raw.take(progress.token);
        if (sent === undefined) throw error;
        result = sent;
      }
      result = this.raw.take(progress.token) ?? result;
      if (method === 'tools/call') this.tasks.noteStarted(result, String(params?.name));
      return { result, blobs: channel?.take(progress.token) ?? Blobs.NONE };
    } catch (error) {
      if (timedOutAfter) {
        this.checkAlive();
        throw timedOut(`upstream "${this.name}" did not answer ${method} within ${timeout} ms`);
      }
      throw this.describe(error, method);
    } finally {
      clearTimeout(timer);
      this.raw.take(progress.token);
      progress.release();
      channel?.release(progress.token);
      options.signal?.removeEventListener('abort', onClientAbort);
    }
  }

  /**
   * A client's `tools/call` relayed the way `request` relays it, for the relay lane (gateway/relay-lane.ts), with
   * callbacks instead of promises and signals: the proxy's own progress token (so the result's payloads kept as
   * bytes travel with it, and progress restarts the timeout), the same timeout and liveness check, the same errors.
   * Only a connection whose relayed requests go directly (direct-requests.ts; up) takes it; otherwise nothing is
   * sent and undefined says so. What it returns cancels the call upstream (`done` is then not called). A 2026-07-28
   * server gets the call as `request` sends it there: with `envelope`'s client identity (envelopeMeta) and, over
   * HTTP, the tool's `Mcp-Param-*` headers; its task handles are noted for tasks/get.
   */
  relayCall(
    params: Record<string, unknown>,
    done: (outcome: { result: Result; blobs: Blobs } | { error: Error }) => void,
    envelope?: RequestEnvelope,
  ): ((reason: unknown) => boolean) | undefined {
    const connection = this.connection;
    if (this.state !== 'up' || !connection) return undefined;
    const direct = directRequestsOf(connection.client);
    if (!direct) return undefined;
    const modern = connection.client.getProtocolEra() === 'modern';
    this.carried = true;
    const channel = connection.transport instanceof ProcessTransport ? connection.transport.blobs : undefined;
    const timeout = this.config.timeoutMs;
    const deadlines = this.relayDeadlines;
    // Runs a sweep later at the earliest, by when `id` is known.
    const deadline = deadlines.add(() => {
      if (id === undefined || !direct.cancel(id, `timed out after ${timeout} ms`)) return;
      finish();
      this.checkAlive();
      done({ error: timedOut(`upstream "${this.name}" did not answer tools/call within ${timeout} ms`) });
    });
    const progress = this.progress.register(() => deadlines.refresh(deadline));
    const finish = () => {
      deadlines.clear(deadline);
      progress.release();
      channel?.release(progress.token);
    };
    const meta = this.relayedMeta(params, progress.token, modern, envelope);
    const headers = modern && this.config.kind === 'http' ? this.paramHeadersOf(params) : undefined;
    const id = direct.send(
      'tools/call',
      { ...params, _meta: meta },
      (answer, atOnce) => {
        const blobs = 'result' in answer ? (channel?.take(progress.token) ?? Blobs.NONE) : Blobs.NONE;
        finish();
        if (modern && 'result' in answer) this.tasks.noteStarted(answer.result, String(params.name));
        // What the upstream sent before its answer (log messages, in the same read) is passed on first: the SDK
        // client hands notifications over in microtasks, which all run before the check phase. Over HTTP an answer
        // read in a turn that handed none over goes at once (whenReadsAllow), ahead of the rest of its response's
        // handling; over stdio nothing stands between the read and the check phase, and a burst of answers shares
        // one immediate. A closing connection's failures always wait: it fails its calls before the close is told
        // (onClosed), so why it closed is known by then.
        (atOnce ? whenReadsAllow : afterReads)(() =>
          done(
            'result' in answer
              ? { result: answer.result, blobs }
              : { error: this.describe(answer.error, 'tools/call') },
          ),
        );
      },
      headers,
    );
    if (id === undefined) {
      finish();
      return undefined;
    }
    return (reason) => {
      if (!direct.cancel(id, reason)) return false;
      finish();
      return true;
    };
  }

  async notify(notification: Notification): Promise<void> {
    const client = this.connection?.client;
    if (this.state !== 'up' || !client) return;
    await sendRawNotification(client, notification).catch((error: unknown) => {
      this.log.debug({ err: error }, `could not forward ${notification.method}`);
    });
  }

  /**
   * Remembered so a restarted upstream gets the same level. The modern era has no `logging/setLevel`: the level
   * goes with every request instead (see envelopeMeta).
   */
  async setLogLevel(level: string): Promise<void> {
    this.logLevel = level;
    if (this.state === 'up' && this.capabilities?.logging && this.era !== 'modern')
      (await this.request('logging/setLevel', { level })).blobs.dispose();
  }

  /** Remembered so a restarted upstream keeps sending updates. */
  trackSubscription(uri: string, subscribed: boolean): void {
    if (subscribed) this.subscriptions.add(uri);
    else this.subscriptions.delete(uri);
  }

  /**
   * The `_meta` a relayed request carries: the client's own keys, the proxy's progress token, and to a modern
   * upstream the client's identity (envelopeMeta). The protocol version is this hop's, which the SDK's client (or
   * DirectRequests, as it would) puts first.
   */
  private relayedMeta(
    params: Record<string, unknown> | undefined,
    token: ProgressToken,
    modern: boolean,
    envelope: RequestEnvelope | undefined,
  ): Record<string, unknown> {
    const meta: Record<string, unknown> = {
      ...((params?._meta as Record<string, unknown> | undefined) ?? {}),
      progressToken: token,
      ...(modern ? this.envelopeMeta(envelope) : {}),
    };
    if (modern && PROTOCOL_VERSION_META_KEY in meta) delete meta[PROTOCOL_VERSION_META_KEY];
    return meta;
  }

  /** The `Mcp-Param-*` headers of a `tools/call` to a modern server over HTTP, from the tool's listed schema. */
  private paramHeadersOf(params: Record<string, unknown> | undefined): Record<string, string> | undefined {
    return paramHeaders(
      this.catalog.tools.find((tool) => tool.name === params?.name),
      params?.arguments,
    );
  }

  /**
   * The envelope keys a modern upstream gets with a request: the downstream client's identity and log level when
   * the request has them, else those of the client this connection speaks for (a connection shared by several
   * clients speaks as the proxy, which the SDK stamps itself). The protocol version is the SDK's, of this hop.
   */
  private envelopeMeta(envelope: RequestEnvelope | undefined): Record<string, unknown> {
    const own = this.identity === PROXY_IDENTITY ? undefined : this.identity;
    const clientInfo = envelope?.clientInfo ?? own?.clientInfo;
    const clientCapabilities = envelope?.clientCapabilities ?? own?.capabilities;
    const logLevel = envelope?.logLevel ?? this.logLevel;
    return {
      ...(clientInfo !== undefined ? { [CLIENT_INFO_META_KEY]: clientInfo } : {}),
      ...(clientCapabilities !== undefined ? { [CLIENT_CAPABILITIES_META_KEY]: clientCapabilities } : {}),
      ...(logLevel !== undefined ? { [LOG_LEVEL_META_KEY]: logLevel } : {}),
    };
  }

  /**
   * `resources/subscribe` and `resources/unsubscribe` do not exist in the modern era: a server sends
   * `notifications/resources/updated` for the URIs named in the `subscriptions/listen` filter, so the filter is
   * what changes. The gateway records the subscription itself (trackSubscription), and is answered as the server
   * would have answered the request.
   */
  private async subscribeModern(method: string, params: Record<string, unknown> | undefined, client: Client) {
    const uri = String(params?.uri);
    this.trackSubscription(uri, method === 'resources/subscribe');
    await this.listen(client);
    return { result: {} as Result, blobs: Blobs.NONE };
  }

  /**
   * Opens (again) the stream a modern upstream sends its change notifications on, for what the gateway needs to
   * hear: list changes the server offers and the resources some client subscribed to. One at a time; a stream the
   * server ends is opened again.
   */
  private listen(client: Client): Promise<void> {
    const next = this.listening.then(async () => {
      const previous = this.subscription;
      this.subscription = undefined;
      await previous?.close().catch(() => undefined);
      if (this.connection?.client !== client) return;
      const filter = this.listenFilter();
      if (Object.keys(filter).length === 0) return;
      try {
        const subscription = await client.listen(filter, {
          timeout: Math.max(this.config.timeoutMs, MIN_CONNECT_TIMEOUT_MS),
        });
        if (this.connection?.client !== client) {
          await subscription.close().catch(() => undefined);
          return;
        }
        this.subscription = subscription;
        void subscription.closed.then((how) => {
          if (how === 'local' || this.subscription !== subscription || this.connection?.client !== client) return;
          this.log.info(`upstream "${this.name}" ended its notification stream (${how}); opening it again`);
          setTimeout(() => void this.listen(client), REOPEN_STREAM_DELAY_MS).unref();
        });
      } catch (error) {
        this.log.warn({ err: errorText(error) }, `could not open the notification stream of upstream "${this.name}"`);
      }
    });
    this.listening = next;
    return next;
  }

  private listenFilter(): SubscriptionFilter {
    const capabilities = this.capabilities;
    return {
      ...(capabilities?.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(capabilities?.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(capabilities?.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(capabilities?.resources?.subscribe && this.subscriptions.size
        ? { resourceSubscriptions: [...this.subscriptions] }
        : {}),
    };
  }

  /**
   * After a timeout: a server that still answers ping is only slow; one that does not is hung, and
   * is ended so supervision starts a fresh one.
   */
  private checkAlive(): void {
    const connection = this.connection;
    if (this.checking || this.state !== 'up' || !connection) return;
    const timeout = Math.min(Math.max(this.config.timeoutMs, 1000), 10_000);
    // The modern era has no ping; asking the server what it offers is as cheap.
    const question =
      connection.client.getProtocolEra() === 'modern'
        ? connection.client.discover({ timeout })
        : connection.client.ping({ timeout });
    const check = question.then(
      () => 'alive' as const,
      async () => {
        if (this.connection !== connection) return 'alive' as const;
        this.hung = `it stopped answering (no reply to ping within ${timeout} ms after a request timed out)`;
        this.log.warn(`upstream "${this.name}" is hung; restarting it`);
        if (connection.transport instanceof ProcessTransport) connection.transport.kill('SIGKILL');
        else await connection.transport.close().catch(() => undefined);
        return 'hung' as const;
      },
    );
    this.checking = check.then(() => undefined).finally(() => (this.checking = undefined));
    this.lastLivenessCheck = check;
  }

  /** `prior`: an era verdict for this attempt only (see endedByProbe). */
  private async connect(prior?: PriorDiscovery): Promise<void> {
    const attempt = ++this.attempt;
    this.setState(this.state === 'connecting' ? 'connecting' : 'down');
    let connection: ConnectedClient;
    const timeout = Math.max(this.config.timeoutMs, MIN_CONNECT_TIMEOUT_MS);
    const plan = prior ? { ...this.eraPlan(), prior } : this.eraPlan();
    let connecting: Client | undefined;
    let lateDiscover: DiscoverResult | undefined;
    let probed = false;
    try {
      connection = await connectClient(
        this.config,
        (era) => (connecting = this.makeClient(era)),
        this.log,
        timeout,
        (transport) =>
          new DecoratedTransport(transport, {
            inbound: (message) => {
              if (isProbeReply(message)) {
                // While the SDK probes, the answer is its own and reaches it as the server sent it: a -32022
                // refusal names the versions the server supports in its `data`, which the SDK reads to retry
                // with a mutual one (carried as a wire error, the SDK would find no list and fall back to
                // `initialize`). Once the SDK has moved on, the answer is too late for it.
                if (!connecting?.transport) return message;
                const late = lateModernAnswer(message);
                if (late) {
                  lateDiscover = late;
                  return undefined;
                }
              }
              const rest = this.progress.take(message);
              return rest && carryWireError(this.raw.inbound(rest));
            },
            outbound: (message) => {
              if ('method' in message && message.method === 'server/discover') probed = true;
              return this.raw.outbound(this.answers.restore(message));
            },
          }),
        plan,
        this.login,
      );
    } catch (error) {
      if (attempt !== this.attempt) return;
      if (error instanceof LoginRequiredError) {
        this.needLogin(error);
        return;
      }
      if (this.legacyForClient && speaksLegacyToo(this.config) === undefined) {
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
      if (lateDiscover) {
        // Answering the probe late made it a modern connection, which then refused `initialize`.
        this.startAgainModern(lateDiscover);
        await this.connect();
        return;
      }
      if (this.endedByProbe(error, plan, probed)) {
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
        this.log.error(
          { err: this.lastError, ...(this.config.source ? { config: where(this.config.source) } : {}) },
          `upstream "${this.name}" cannot be started; it is not retried`,
        );
        this.giveUp();
        return;
      }
      this.log.error({ err: this.lastError }, `could not connect to upstream "${this.name}"`);
      this.afterFailure();
      return;
    }
    if (this.stopping || attempt !== this.attempt) {
      await this.closeUnused(connection);
      return;
    }
    if (lateDiscover && connection.client.getProtocolEra() === 'legacy') {
      await this.closeUnused(connection);
      this.startAgainModern(lateDiscover);
      await this.connect();
      return;
    }
    this.connection = connection;
    this.carried = false;
    const { client } = connection;
    this.lastEra = client.getProtocolEra();
    if (this.lastEra === 'legacy' && plan.era.protocol === 'auto') rememberLegacy(this.config);
    if (this.legacyForClient && this.lastEra === 'legacy') rememberLegacyToo(this.config, true);
    this.capabilities = client.getServerCapabilities();
    this.serverInfo = client.getServerVersion();
    if (this.config.nameFromServerInfo) this.adoptServerName(this.serverInfo?.name);
    this.instructions = client.getInstructions();
    relayDirectly(connection, this.config.kind === 'http' ? this.config : undefined);
    try {
      // Through the refresh queue: a list_changed that arrives while this first listing runs (a server
      // registering tools once it is initialized) is applied after it, not overwritten by it.
      const initial = this.refreshing.then(async () => {
        this.catalog = await fetchCatalog(client, this.capabilities, timeout);
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
    await this.restoreSessionState(client);
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
   * the server is known to be legacy. The built-in browser backend is the proxy's own legacy server.
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
  private startAgainModern(discover: DiscoverResult): void {
    rememberModern(this.config, discover);
    this.log.info(`upstream "${this.name}" answered server/discover late: a modern server; starting it again`);
  }

  /**
   * A local process asked `server/discover` that did not get connected: it closed during the probe (the SDK's
   * EraNegotiationFailed), or later, on the `initialize` that followed a probe it had not answered in time (it read
   * the probe only then). Either way it is tried once more without the probe, a legacy verdict for this attempt
   * only: a server that fails for other reasons fails again, and is supervised as usual.
   */
  private endedByProbe(error: unknown, plan: EraPlan, probed: boolean): boolean {
    if (this.config.kind !== 'stdio' || plan.era.protocol !== 'auto' || plan.prior !== undefined) return false;
    return (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) || probed;
  }

  private makeClient(era: EraChoice): Client {
    const client = identifiedClient(this.identity, era);
    client.fallbackRequestHandler = (request, ctx) =>
      this.answers.answer(request.id, ctx.mcpReq.signal, () => this.hooks.serverRequest(this, request, ctx));
    client.fallbackNotificationHandler = async (notification) => this.onNotification(notification);
    client.onerror = (error) => this.log.warn({ err: errorText(error) }, 'upstream protocol error');
    client.onclose = () => this.onClosed(client);
    return client;
  }

  private onNotification(received: Notification): void {
    const notification = withoutStreamId(received);
    switch (notification.method) {
      case 'notifications/tools/list_changed':
        return this.refresh(['tools']);
      case 'notifications/prompts/list_changed':
        return this.refresh(['prompts']);
      case 'notifications/resources/list_changed':
        return this.refresh(['resources', 'resourceTemplates']);
      default:
        this.hooks.notification(this, notification);
    }
  }

  /** Re-lists the given kinds the server announced a change of, one refresh at a time so results apply in order. */
  private refresh(kinds: CatalogKind[]): void {
    this.refreshing = this.refreshing.then(async () => {
      const client = this.connection?.client;
      if (!client || !this.capabilities) return;
      try {
        const fresh = await fetchCatalog(
          client,
          this.capabilities,
          Math.max(this.config.timeoutMs, MIN_CONNECT_TIMEOUT_MS),
          kinds,
        );
        for (const kind of kinds) (this.catalog[kind] as unknown[]) = fresh[kind];
        this.hooks.catalogChanged(this, kinds, true);
      } catch (error) {
        this.log.warn({ err: errorText(error), kinds }, 'could not refresh the catalog');
      }
    });
  }

  private onClosed(client: Client): void {
    if (this.connection?.client !== client) return;
    const transport = this.connection.transport;
    this.connection = undefined;
    if (this.stopping) return;
    const exit = transport instanceof ProcessTransport ? transport.exit : undefined;
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
   * For a call to a tool of this server while it waits for a login (its tools are not listed then): a login
   * written since is used at once, not only at the next look at the file. Whether the server is up now.
   */
  async loginWritten(): Promise<boolean> {
    if (this.loggingIn) await this.loggingIn;
    else if (this.state === 'needs-login' && this.login?.changedSinceWatch()) await this.afterLogin();
    return this.state === 'up';
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

  private async restoreSessionState(client: Client): Promise<void> {
    if (client.getProtocolEra() === 'modern') {
      await this.listen(client);
      return;
    }
    if (this.logLevel && this.capabilities?.logging) {
      await sendRawRequest(client, { method: 'logging/setLevel', params: { level: this.logLevel } }).catch(
        () => undefined,
      );
    }
    if (this.capabilities?.resources?.subscribe) {
      for (const uri of this.subscriptions) await client.subscribeResource({ uri }).catch(() => undefined);
    }
  }

  private async ready(method: string, signal?: AbortSignal): Promise<Client> {
    const current = this.connection?.client;
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
        reject(new ClientError(CONNECTION_CLOSED, 'request cancelled'));
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
    const relayed = relayedError(error);
    if (relayed) return relayed;
    // Tokens that were refused and could not be refreshed: a login, not a restart, brings the server back.
    const needed = this.login?.failure(error);
    if (needed) {
      this.needLogin(needed);
      return unavailable(needed.message);
    }
    if (isConnectionClosed(error)) {
      const why = this.lastError ?? 'the connection closed';
      return unavailable(`upstream "${this.name}" failed while handling ${method}: ${why}; it is being restarted`);
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * A notification a modern upstream sent on the proxy's `subscriptions/listen` stream names that stream; it is the
 * proxy's own business with the upstream, and means nothing to a client, which is told on streams of its own.
 */
function withoutStreamId(notification: Notification): Notification {
  const meta = notification.params?._meta;
  if (meta === undefined || !(SUBSCRIPTION_ID_META_KEY in meta)) return notification;
  const { [SUBSCRIPTION_ID_META_KEY]: _stream, ...rest } = meta;
  const { _meta: _old, ...params } = notification.params!;
  return { ...notification, params: Object.keys(rest).length ? { ...params, _meta: rest } : params };
}

/**
 * A process that has not carried a client's request is not kept waiting for (it may ignore the end of its stdin
 * for the whole exit grace): nothing of a client's can be lost with it.
 */
const UNUSED_EXIT_GRACE_MS = 100;

async function closeQuietly(connection: ConnectedClient): Promise<void> {
  await connection.client.close().catch(() => undefined);
  await connection.transport.close().catch(() => undefined);
}

function where(source: NonNullable<ServerConfig['source']>): string {
  return `${source.file}:${source.line}:${source.column}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
