import { randomBytes } from 'node:crypto';
import { Server } from '@modelcontextprotocol/server';
import type {
  ClientCapabilities,
  Implementation,
  InitializeRequest,
  Notification,
  RequestId,
  ServerCapabilities,
  Transport,
} from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { sendRawNotification } from '../protocol/raw-messages.js';
import type { Upstream } from '../upstreams/upstream.js';
import { VerbatimResponses } from '../transports/verbatim-responses.js';
import { carryWireError } from '../transports/wire-errors.js';
import { DecoratedTransport } from '../transports/decorated-transport.js';
import { LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { RequestContext, RequestHandler } from './context.js';
import type { ArtifactLinks } from '../pipeline/types.js';
import type { Who } from './events.js';
import { answerInitialize, type InitializeAnswer } from './initialize.js';
import type { SessionView } from './session-view.js';
import { LeanDispatch } from '../fast-path/lean-dispatch.js';

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

export interface SessionSetup {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
  handle: RequestHandler;
  /** Starts what serves the session, as the client that just introduced itself, and says what to answer it. */
  initialize(session: DownstreamSession, params: InitializeRequest['params']): Promise<InitializeAnswer>;
  clientNotification(session: DownstreamSession, notification: Notification): void;
  initialized(session: DownstreamSession): void;
  closed(session: DownstreamSession): void;
  log: Logger;
}

let nextSessionNumber = 1;

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
  private readonly inflight = new Map<RequestId, Upstream>();
  private readonly subscriptions = new Set<string>();
  /** The proxy's answers to this client: what the upstreams said, relayed. */
  private readonly answers = new VerbatimResponses();
  /** Legacy-era calls served past the SDK's dispatcher, by the same handler (fast-path/lean-dispatch.ts). */
  private readonly lean = new LeanDispatch(this);
  private closed = false;
  private handshakeDone = false;
  private readonly handshakeWaiters = new Set<() => void>();

  constructor(
    private readonly setup: SessionSetup,
    view: SessionView,
    readonly identity: SessionIdentity = {},
  ) {
    this.view = view;
    // Records outlive the process and session numbers restart with it: a random owner keeps a new
    // session from seeing artifacts of an earlier run's session with the same number.
    this.owner = identity.owner ?? `${this.id}-${randomBytes(8).toString('hex')}`;
    this.who = { ...(identity.token !== undefined ? { token: identity.token } : {}), session: this.id };
    this.server = new Server(setup.serverInfo, {
      capabilities: setup.capabilities,
      instructions: setup.instructions,
      supportedProtocolVersions: LEGACY_PROTOCOL_VERSIONS,
    });
    // logging/setLevel is forwarded upstream rather than answered by the SDK.
    this.server.removeRequestHandler('logging/setLevel');
    answerInitialize(this.server, (params) => setup.initialize(this, params));
    this.server.fallbackRequestHandler = async (request, ctx) => {
      const context: RequestContext = { session: this, request, extra: ctx };
      try {
        return await this.answers.answer(request.id, ctx.mcpReq.signal, () => setup.handle(context));
      } finally {
        this.inflight.delete(request.id);
      }
    };
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

  get clientCapabilities(): ClientCapabilities | undefined {
    return this.server.getClientCapabilities();
  }

  /** What the client said it is in `initialize` (its name decides its budget: pipeline/client-budgets.ts). */
  get clientInfo(): Implementation | undefined {
    return this.server.getClientVersion();
  }

  /** Whether the client has finished the handshake, so its capabilities are known. */
  get isInitialized(): boolean {
    return this.server.getClientCapabilities() !== undefined;
  }

  /**
   * Resolves once the client has sent `initialized` (requests to it must wait for that), or the session closes,
   * or `signal` aborts.
   */
  handshake(signal: AbortSignal): Promise<void> {
    if (this.handshakeDone || this.closed || signal.aborted) return Promise.resolve();
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
    return this.server.connect(
      new DecoratedTransport(
        transport,
        this.lean.hooks({
          inbound: carryWireError,
          outbound: (message) => this.answers.restore(message),
        }),
      ),
    );
  }

  async close(): Promise<void> {
    await this.server.close().catch(() => undefined);
    this.markClosed();
  }

  routeTo(requestId: RequestId, upstream: Upstream): void {
    this.inflight.set(requestId, upstream);
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
    for (const [id, served] of this.inflight) if (served === upstream) found = id;
    return found;
  }

  async notify(notification: Notification): Promise<void> {
    // Before the handshake the client has nothing to be told: it lists and subscribes once it is done.
    if (this.closed || !this.handshakeDone) return;
    try {
      await sendRawNotification(this.server, notification);
    } catch (error) {
      this.setup.log.debug({ err: String(error), method: notification.method }, 'notification not sent to client');
    }
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
