import { randomBytes } from 'node:crypto';
import type { ClientCapabilities, Implementation, Transport } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { ArtifactLinks } from '../pipeline/types.js';
import type { ProtocolEra } from '../protocol/versions.js';
import type { Upstream } from '../upstreams/upstream.js';
import type { SessionView } from './session-view.js';
import type { Who } from './events.js';
import { SdkWire } from '../transports/sdk.js';
import { Frame, type Id } from '../wire/frame.js';
import type { FrameContext, SendOptions, Wire } from '../wire/wire.js';
import type { RequestEnvelope } from '../protocol/envelope.js';
import { Listens } from './listens.js';
import { onAbort, type Signal } from '../rpc/cancellation.js';
import { keyOf, Peer, type RequestOptions } from '../rpc/peer.js';

/**
 * Who a session acts for. Artifacts belong to `owner`: by default the session itself; the proxy's own stdio session
 * gives the local user (cli/run.ts); over HTTP, the authenticated principal or a random id per session, as
 * `auth.artifactScope` says (http/artifact-owner.ts).
 */
export interface SessionIdentity {
  owner?: string;
  /** The name of the token the client authenticated with. */
  token?: string;
  /** Download links for summaries (HTTP mode), since the client cannot open the gateway's files. */
  links?: ArtifactLinks;
}

/** How a session is served: its era, when known from the start, and where a 2026-07-28 client hears of changes. */
export interface SessionKind {
  /** Fixed by the transport (HTTP knows it per request); on stdio the client's first message decides. */
  era?: ProtocolEra;
  /** One HTTP request (a 2026-07-28 client over HTTP): the gateway does not fan list changes out to it. */
  transient?: boolean;
  /** The listen streams of the principal a transient session's request comes from (http/modern-posts.ts). */
  listens?: Listens;
}

/** A request of the client's in flight (relay/call.ts), as the session keeps it. */
export interface InFlight {
  readonly received: Frame;
  /** The upstream serving it, once routed. */
  readonly to?: unknown;
  readonly envelope: RequestEnvelope;
  cancel(reason: unknown): void;
}

/** What a 2025-era client said of itself in `initialize`. */
export interface ClientHello {
  clientInfo?: Implementation;
  capabilities?: ClientCapabilities;
  protocolVersion?: string;
}

export interface SessionHooks {
  request(session: Session, frame: Frame, context?: FrameContext): void;
  notification(session: Session, frame: Frame, context?: FrameContext): void;
  closed(session: Session): void;
  log: Logger;
}

let nextSessionNumber = 1;

/**
 * One connected MCP client: its wire, what it said of itself, the requests it has in flight and what it is told.
 * Everything it sends goes to the relay (src/relay/dispatch.ts); the relay answers through it.
 */
export class Session {
  readonly side = 'client' as const;
  readonly id = `s${nextSessionNumber++}`;
  readonly owner: string;
  readonly who: Who;
  /** The connections that serve this session and the catalog they make; set by the gateway. */
  view: SessionView;
  /** What the client said in `initialize` (2025 era). */
  hello?: ClientHello;
  /** The requests of this client in flight, by id. */
  readonly calls = new Map<unknown, InFlight>();
  /** A 2026-07-28 client's `subscriptions/listen` streams on this connection (stdio). */
  readonly listens: Listens;
  private era_: ProtocolEra | undefined;
  private peer?: Peer;
  private wire?: Wire;
  private readonly subscriptions = new Set<string>();
  private handshakeDone = false;
  private closed = false;
  private readonly handshakeWaiters = new Set<() => void>();

  constructor(
    private readonly hooks: SessionHooks,
    view: SessionView,
    readonly identity: SessionIdentity = {},
    readonly kind: SessionKind = {},
  ) {
    this.view = view;
    this.era_ = kind.era;
    // Records outlive the process and session numbers restart with it: a random owner keeps a new session from
    // seeing artifacts of an earlier run's session with the same number.
    this.owner = identity.owner ?? `${this.id}-${randomBytes(8).toString('hex')}`;
    this.who = { ...(identity.token !== undefined ? { token: identity.token } : {}), session: this.id };
    this.listens = kind.listens ?? new Listens();
  }

  /** The era the client speaks; undefined on stdio until its first message has said. */
  get era(): ProtocolEra | undefined {
    return this.era_;
  }

  /** Pins the era (the first message of a stdio client decides it). */
  pin(era: ProtocolEra): void {
    this.era_ ??= era;
  }

  get clientInfo(): Implementation | undefined {
    return this.hello?.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities | undefined {
    return this.hello?.capabilities;
  }

  /** A 2025 client that has sent `initialize`; a 2026-07-28 client, always. */
  get isInitialized(): boolean {
    return this.era_ === 'modern' ? !this.closed : this.hello !== undefined;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Connects a client in this process through an MCP SDK transport (the SDK's in-memory pair, say). */
  async connect(transport: Transport): Promise<void> {
    const wire = new SdkWire(transport);
    this.attach(wire);
    await wire.start();
  }

  /** Connects the client's wire. */
  attach(wire: Wire): void {
    this.wire = wire;
    this.peer = new Peer(
      wire,
      {
        request: (frame, context) => this.hooks.request(this, frame, context),
        notification: (frame, context) => this.hooks.notification(this, frame, context),
        closed: () => this.markClosed(),
      },
      `mcp-offload-${this.id}`,
    );
  }

  /** The client finished its handshake (`notifications/initialized`). */
  initialized(): void {
    this.handshakeDone = true;
    this.wakeHandshakeWaiters();
  }

  /**
   * Resolves once the client has sent `initialized` (requests to it must wait for that), or the session closes, or
   * `signal` aborts.
   */
  handshake(signal: Signal): Promise<void> {
    if (this.era_ === 'modern' || this.handshakeDone || this.closed || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.handshakeWaiters.delete(done);
        stopListening();
        resolve();
      };
      this.handshakeWaiters.add(done);
      const stopListening = onAbort(signal, done);
    });
  }

  /** The client's wire can end a request's stream for the client to resume it (Wire.pause). */
  get pausable(): boolean {
    return this.wire?.pause !== undefined;
  }

  /** Ends the stream of the client's request `id` for now; the client resumes it (see Wire.pause). */
  pause(id: Id, retryMs: number | undefined, resume?: () => void): void {
    this.wire?.pause?.(id, retryMs, resume);
  }

  /** Answers the client's request `id`. */
  answer(id: Id, frame: Frame): Promise<void> {
    return this.peer?.answer(id, frame, { related: id }) ?? Promise.resolve();
  }

  /** A request to the client (a question of an upstream's), on the stream of the client's call it belongs to. */
  ask(frame: Frame, options: RequestOptions): Promise<Frame> {
    if (!this.peer) return Promise.reject(new Error('the client is not connected'));
    return this.peer.request(frame, options);
  }

  /** A notification for the client as it is (relayed); `related`: the client's request it belongs to. */
  send(frame: Frame, options?: SendOptions): Promise<void> {
    if (this.closed || !this.peer) return Promise.resolve();
    return this.peer.notify(frame, options).catch((error: unknown) => {
      this.hooks.log.debug({ err: String(error), method: frame.method }, 'notification not sent to client');
    });
  }

  /**
   * A notification of the proxy's own for this client (a list change, a resource update). A 2025 client hears it
   * once it has finished its handshake; a 2026-07-28 client only on the listen streams that asked for it.
   */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.closed) return;
    if (this.era_ === 'modern') return this.listens.publish(method, params);
    // Before the handshake the client has nothing to be told: it lists and subscribes once it is done.
    if (!this.handshakeDone) return;
    await this.send(Frame.notification(method, params));
  }

  /** The newest request of this client that `upstream` is serving, if any. */
  requestServedBy(upstream: Upstream): Id | undefined {
    let found: Id | undefined;
    for (const call of this.calls.values()) if (call.to === upstream) found = call.received.id ?? undefined;
    return found;
  }

  /** The client's request `id` in flight. */
  call(id: unknown): InFlight | undefined {
    return this.calls.get(keyOf(id as Id));
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

  async close(): Promise<void> {
    await this.peer?.close();
    this.markClosed();
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const call of this.calls.values()) call.cancel('the client went away');
    // A principal's listen streams (HTTP) outlive each of its requests; a connection's own end with it.
    if (!this.kind.listens) this.listens.close();
    this.wakeHandshakeWaiters();
    this.hooks.closed(this);
  }

  private wakeHandshakeWaiters(): void {
    for (const wake of [...this.handshakeWaiters]) wake();
  }
}
