import { randomBytes } from 'node:crypto';
import { Server } from '@modelcontextprotocol/server';
import type {
  ClientCapabilities,
  Implementation,
  InitializeRequest,
  JSONRPCRequest,
  Notification,
  RequestId,
  Result,
  ServerCapabilities,
  ServerContext,
  ServerOptions,
  StandardSchemaV1,
  Transport,
} from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { sendRawNotification } from '../protocol/raw-messages.js';
import type { Upstream } from '../upstreams/upstream.js';
import { VerbatimResponses } from '../transports/verbatim-responses.js';
import { carryWireError } from '../transports/wire-errors.js';
import { DecoratedTransport } from '../transports/decorated-transport.js';
import type { RequestContext, RequestHandler } from './context.js';
import { envelopeOf, logLevelPasses, type RequestEnvelope } from './envelope.js';
import { SERVED_PROTOCOL_VERSIONS, type ProtocolEra } from '../protocol/versions.js';
import type { ArtifactLinks } from '../pipeline/types.js';
import type { Who } from './events.js';
import { answerInitialize, type InitializeAnswer } from './initialize.js';
import type { SessionView } from './session-view.js';
import { LeanDispatch } from '../fast-path/lean-dispatch.js';
import type { LaneAnswer, LaneCancel } from './relay-lane.js';

/**
 * Who a session acts for. Artifacts belong to `owner`: by default the session itself; over HTTP, a
 * random id per session or the token's name, as `auth.artifactScope` says.
 */
export interface SessionIdentity {
  owner?: string;
  /** The name of the token the client authenticated with. */
  token?: string;
  /** Download links for summaries (HTTP mode), since the client cannot open the gateway's files. */
  links?: ArtifactLinks;
}

/** How a session is served: its era, and for a modern one where its change notifications go. */
export interface SessionKind {
  era: ProtocolEra;
  /**
   * A modern client hears of changes (list_changed, resources/updated) only on its `subscriptions/listen` stream:
   * this sends one there. Absent, the notification goes out through the session's Server, which the stdio entry
   * routes onto the listen streams.
   */
  changes?: (notification: Notification) => void;
  /** One HTTP request (stateless modern serving): the gateway does not fan list changes out to it. */
  transient?: boolean;
}

export interface SessionSetup {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
  handle: RequestHandler;
  /** The relay lane (relay-lane.ts), when the gateway has one. */
  relayCall?: (
    session: DownstreamSession,
    request: JSONRPCRequest,
    answer: (answer: LaneAnswer) => void,
    envelope?: Record<string, unknown>,
  ) => LaneCancel | undefined;
  /** Starts what serves the session, as the client that just introduced itself, and says what to answer it. */
  initialize(session: DownstreamSession, params: InitializeRequest['params']): Promise<InitializeAnswer>;
  clientNotification(session: DownstreamSession, notification: Notification): void;
  initialized(session: DownstreamSession): void;
  closed(session: DownstreamSession): void;
  log: Logger;
}

let nextSessionNumber = 1;

const TASK_EXTENSION_METHODS = ['tasks/get', 'tasks/cancel'];

/** Params taken as they came: the relay validates nothing the upstream will. */
const ANY_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'mcp-offload',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

/**
 * The SDK's Server, connected through the proxy's transport decorator when one is given. The serving entries
 * (`serveStdio`, `createMcpHandler`) connect the Server a factory returns to a transport of their own; the decoration
 * has to happen at connect time to stay in the path.
 */
class RelayServer extends Server {
  constructor(
    info: Implementation,
    options: ServerOptions,
    private readonly decorate?: (transport: Transport) => Transport,
  ) {
    super(info, options);
  }

  override connect(transport: Transport): Promise<void> {
    return super.connect(this.decorate ? this.decorate(transport) : transport);
  }

  /** A Server the HTTP entry made only to read its capabilities (for a listen stream) is closed unconnected. */
  override async close(): Promise<void> {
    const connected = this.transport !== undefined;
    await super.close();
    if (!connected) this.onclose?.();
  }
}

/** A request of this client in flight: which upstream serves it, and what it asked with. */
interface InflightRequest {
  upstream: Upstream;
  /** Those of a call the handler serves; a relay lane call (legacy, no per-call stream) has none. */
  ctx?: ServerContext;
  envelope?: RequestEnvelope;
}

/**
 * One connected MCP client. The SDK's Server does the handshake, pings and cancellation; every
 * other request goes through the gateway's handler untouched by the SDK's schemas, so unknown
 * fields survive the trip.
 */
export class DownstreamSession {
  readonly server: Server;
  readonly id = `s${nextSessionNumber++}`;
  readonly owner: string;
  readonly who: Who;
  /** The connections that serve this session and the catalog they make; set by the gateway. */
  view: SessionView;
  /** Requests this client has in flight, and which upstream serves each. */
  private readonly inflight = new Map<RequestId, InflightRequest>();
  private readonly subscriptions = new Set<string>();
  /** The proxy's answers to this client: what the upstreams said, relayed. */
  private readonly answers = new VerbatimResponses();
  /** Legacy-era calls served past the SDK's dispatcher, by the same handler (fast-path/lean-dispatch.ts). */
  readonly lean = new LeanDispatch(this);
  /** The handler for a request whose answer the caller writes as it is (see LeanDispatch). */
  readonly serveLean: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;
  private closed = false;
  private handshakeDone = false;
  private readonly handshakeWaiters = new Set<() => void>();

  constructor(
    private readonly setup: SessionSetup,
    view: SessionView,
    readonly identity: SessionIdentity = {},
    readonly kind: SessionKind = { era: 'legacy' },
  ) {
    this.view = view;
    // Records outlive the process and session numbers restart with it: a random owner keeps a new
    // session from seeing artifacts of an earlier run's session with the same number.
    this.owner = identity.owner ?? `${this.id}-${randomBytes(8).toString('hex')}`;
    this.who = { ...(identity.token !== undefined ? { token: identity.token } : {}), session: this.id };
    // A legacy client gets the upstreams' answers as they were (see VerbatimResponses). A modern one gets what the
    // SDK's 2026 encoder makes of them: the revision requires its stamps (resultType, ttlMs, cacheScope) and its
    // error codes, and that encoder rewrites nothing else.
    // A modern stdio session's calls are taken past the SDK too, once the entry has pinned the connection (an HTTP
    // one lives for a single request, served by the SDK's stateless entry).
    const decorate =
      kind.era === 'legacy'
        ? (transport: Transport) =>
            new DecoratedTransport(
              transport,
              this.lean.hooks({
                inbound: carryWireError,
                outbound: (message) => this.answers.restore(message),
              }),
            )
        : kind.transient
          ? undefined
          : (transport: Transport) => new DecoratedTransport(transport, this.lean.modernHooks());
    this.server = new RelayServer(
      setup.serverInfo,
      {
        capabilities: setup.capabilities,
        instructions: setup.instructions,
        supportedProtocolVersions: SERVED_PROTOCOL_VERSIONS,
      },
      decorate,
    );
    // logging/setLevel is forwarded upstream rather than answered by the SDK.
    this.server.removeRequestHandler('logging/setLevel');
    answerInitialize(this.server, (params) => setup.initialize(this, params));
    const serve = async (request: JSONRPCRequest, ctx: ServerContext, verbatim: boolean): Promise<Result> => {
      const context: RequestContext = { session: this, request, extra: ctx, envelope: this.envelopeFor(ctx) };
      try {
        if (!verbatim) return await setup.handle(context);
        return await this.answers.answer(request.id, ctx.mcpReq.signal, () => setup.handle(context));
      } finally {
        this.inflight.delete(request.id);
      }
    };
    const relay = (request: JSONRPCRequest, ctx: ServerContext) => serve(request, ctx, kind.era === 'legacy');
    this.serveLean = (request, ctx) => serve(request, ctx, false);
    this.server.fallbackRequestHandler = relay;
    if (kind.era === 'modern') {
      // The 2026 wire knows tasks/get and tasks/cancel only as the Tasks extension's: the SDK passes them to a
      // handler registered with a schema of its own, never to the catch-all one.
      for (const method of TASK_EXTENSION_METHODS) {
        this.server.setRequestHandler(method, { params: ANY_PARAMS }, (params, ctx) =>
          relay({ jsonrpc: '2.0', id: ctx.mcpReq.id, method, params: params as JSONRPCRequest['params'] }, ctx),
        );
      }
    }
    this.server.fallbackNotificationHandler = async (notification) => setup.clientNotification(this, notification);
    this.server.oninitialized = () => {
      this.handshakeDone = true;
      this.wakeHandshakeWaiters();
      setup.initialized(this);
    };
    this.server.onclose = () => this.markClosed();
    this.server.onerror = (error) =>
      setup.log.debug({ err: error.message, session: this.id }, 'downstream protocol error');
  }

  get era(): ProtocolEra {
    return this.kind.era;
  }

  /** A legacy client's capabilities from `initialize`; a modern client's are per request (RequestContext.envelope). */
  get clientCapabilities(): ClientCapabilities | undefined {
    return this.server.getClientCapabilities();
  }

  /** What the client said it is in `initialize` (its name decides its budget: pipeline/client-budgets.ts). */
  get clientInfo(): Implementation | undefined {
    return this.server.getClientVersion();
  }

  /** Whether the client has finished the handshake, so its capabilities are known; a modern client has none. */
  get isInitialized(): boolean {
    return this.kind.era === 'modern' ? !this.closed : this.server.getClientCapabilities() !== undefined;
  }

  /** Who asks in this request: a modern request's own envelope, or what a legacy client said in `initialize`. */
  private envelopeFor(ctx: ServerContext): RequestEnvelope {
    if (this.kind.era === 'modern') return envelopeOf(ctx);
    const protocolVersion = this.server.getNegotiatedProtocolVersion();
    return {
      ...(this.clientInfo ? { clientInfo: this.clientInfo } : {}),
      ...(this.clientCapabilities ? { clientCapabilities: this.clientCapabilities } : {}),
      ...(protocolVersion ? { protocolVersion } : {}),
    };
  }

  /**
   * Resolves once the client has sent `initialized` (requests to it must wait for that), or the session closes,
   * or `signal` aborts.
   */
  handshake(signal: AbortSignal): Promise<void> {
    if (this.kind.era === 'modern' || this.handshakeDone || this.closed || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.handshakeWaiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.handshakeWaiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Connects the client's transport; errors the client answers with and the proxy's answers keep their wire form. */
  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  async close(): Promise<void> {
    await this.server.close().catch(() => undefined);
    this.markClosed();
  }

  routeTo(context: RequestContext, upstream: Upstream): void {
    this.inflight.set(context.request.id, { upstream, ctx: context.extra, envelope: context.envelope });
  }

  /** A call of this client the relay lane sent to `upstream` (gateway/relay-lane.ts); `served` when it ends. */
  serving(id: RequestId, upstream: Upstream): void {
    this.inflight.set(id, { upstream });
  }

  served(id: RequestId): void {
    this.inflight.delete(id);
  }

  /** The relay lane's take on a lean call (LeanDispatch): how to stop it, or undefined when the handler serves it. */
  relayCall(
    request: JSONRPCRequest,
    answer: (answer: LaneAnswer) => void,
    envelope?: Record<string, unknown>,
  ): LaneCancel | undefined {
    return this.setup.relayCall?.(this, request, answer, envelope);
  }

  subscribe(uri: string): void {
    this.subscriptions.add(uri);
  }

  unsubscribe(uri: string): void {
    this.subscriptions.delete(uri);
  }

  isSubscribed(uri: string): boolean {
    return this.subscriptions.has(uri);
  }

  /** The newest request of this client that the upstream is serving, if any. */
  requestServedBy(upstream: Upstream): RequestId | undefined {
    let found: RequestId | undefined;
    for (const [id, served] of this.inflight) if (served.upstream === upstream) found = id;
    return found;
  }

  /**
   * A notification for this client. A modern client hears of changes on its listen stream only, and of log
   * messages only on the stream of the call they belong to, when that call asked for a level (`notifyCall`).
   */
  async notify(notification: Notification, relatedRequestId?: RequestId): Promise<void> {
    if (this.closed) return;
    if (this.kind.era === 'modern') {
      if (notification.method === 'notifications/message') return;
      if (this.kind.changes) return this.kind.changes(notification);
    } else if (!this.handshakeDone) {
      // Before the handshake the client has nothing to be told: it lists and subscribes once it is done.
      return;
    }
    try {
      await sendRawNotification(
        this.server,
        notification,
        relatedRequestId === undefined ? undefined : { relatedRequestId },
      );
    } catch (error) {
      this.setup.log.debug({ err: String(error), method: notification.method }, 'notification not sent to client');
    }
  }

  /**
   * A notification an upstream sent while serving this client's call. A legacy client gets it related to that call,
   * so over Streamable HTTP it goes on the call's own stream, ahead of its result, as the server sent it (on the
   * session's GET stream it would be lost while that stream is not open yet). A modern client gets a log message on
   * that call's own stream, and only at or above the level the call asked for; anything else goes as `notify` sends it.
   */
  async notifyCall(upstream: Upstream, notification: Notification): Promise<void> {
    if (this.kind.era !== 'modern') return this.notify(notification, this.requestServedBy(upstream));
    if (notification.method !== 'notifications/message') return this.notify(notification);
    let call: InflightRequest | undefined;
    for (const served of this.inflight.values()) if (served.upstream === upstream) call = served;
    const level = (notification.params as { level?: unknown } | undefined)?.level;
    if (!call?.ctx || this.closed || !logLevelPasses(level, call.envelope?.logLevel)) return;
    await call.ctx.mcpReq.notify(notification).catch((error: unknown) => {
      this.setup.log.debug({ err: String(error) }, 'log message not sent to client');
    });
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.wakeHandshakeWaiters();
    this.setup.closed(this);
  }

  private wakeHandshakeWaiters(): void {
    for (const wake of [...this.handshakeWaiters]) wake();
  }
}
