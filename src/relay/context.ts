import type { InitializeRequest, Implementation, ServerCapabilities } from '@modelcontextprotocol/server';
import type { Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { Signal } from '../rpc/cancellation.js';
import type { GatewayEvents } from './events.js';
import type { InFlight } from './inflight.js';
import type { InputBridge } from './input-bridge.js';
import type { Offload } from './offload.js';
import type { ResourceWatch } from './resource-watch.js';
import type { ServerPool } from '../upstreams/server-pool.js';
import type { Upstream } from '../upstreams/upstream.js';
import type { Session } from './session.js';
import type { Tracing } from '../tracing/trace.js';

/** What the proxy answers a 2025 client's `initialize` with, once the upstreams that serve it have answered. */
export interface InitializeAnswer {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
  /** The version the upstream agreed to, when one upstream serves the client. */
  protocolVersion?: string;
}

/** What the interceptors know of the gateway they serve (src/gateway/gateway.ts implements it). */
export interface RelayContext {
  readonly config: Config;
  readonly log: Logger;
  readonly offload: Offload;
  readonly events: GatewayEvents;
  /** OpenTelemetry traces; undefined when tracing is off (then no call is traced, and nothing is spent on it). */
  readonly tracing: Tracing | undefined;
  readonly inflight: InFlight;
  /** Holds a legacy upstream's calls for 2026-07-28 clients between their requests. */
  readonly bridge: InputBridge;
  /** Upstream subscriptions for the resource URIs 2026-07-28 listen streams want updates of. */
  readonly resourceWatch: ResourceWatch;
  /** Every connected client. */
  readonly sessions: ReadonlySet<Session>;
  /** The shared connection of every configured server. */
  readonly upstreams: readonly Upstream[];
  readonly pools: readonly ServerPool[];
  /** Stdio: the gateway serves one client for its whole life. */
  readonly oneClient: boolean;
  /** Starts what serves a 2025 client that just introduced itself, as it, and says what to answer it. */
  initialize(session: Session, params: InitializeRequest['params']): Promise<InitializeAnswer>;
  /** A client finished its handshake (questions that waited for one can go). */
  clientArrived(): void;
  /** The session a connection was opened for alone, if any. */
  ownerOf(upstream: Upstream): Session | undefined;
  /** The client of a one-client gateway, once it has introduced itself. */
  theClient(): Session | undefined;
  /** Resolves once some client has finished its handshake, or `signal` aborts. */
  clientConnected(signal: Signal): Promise<void>;
  serverInfo(upstreams?: readonly Upstream[]): Implementation;
  capabilities(upstreams?: readonly Upstream[]): ServerCapabilities;
  instructions(upstreams?: readonly Upstream[]): string | undefined;
  /** A change of the shared catalog (or a resource update on a shared connection), for 2026-07-28 listen streams. */
  sharedChange(method: string, params: Record<string, unknown> | undefined, server: string): void;
}
