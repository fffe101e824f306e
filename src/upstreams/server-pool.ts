import type { Isolation, ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { PROXY_IDENTITY, type ClientIdentity } from './client-identity.js';
import { followsLegacyClients } from './era-verdicts.js';
import type { Upstream } from './upstream.js';

/**
 * The connections to one configured server: the shared one, started with the gateway, and one per client
 * session when the server is isolated. It decides which connection serves a new session.
 *
 * A server of both eras meets every client in the client's era, as it would directly: the shared connection speaks
 * 2026-07-28 to it (modern clients' requests, each with its client's envelope), and a legacy client gets a legacy
 * connection: its own where sessions are isolated (remote servers, isolated or questioning command servers), else
 * one second shared connection that speaks the legacy era for every legacy client (one process more, not one per
 * client). A server that refuses the legacy `initialize` serves legacy clients from the modern connection.
 */
export class ServerPool {
  private readonly own = new Map<string, Upstream>();
  /** The shared legacy-era connection of a command server of both eras, opened when its first legacy client came. */
  private legacy?: { upstream: Upstream; started: Promise<void> };
  /** The server asked a client something on the shared connection. */
  private asksClients = false;

  constructor(
    readonly shared: Upstream,
    /** A new, not yet started connection that introduces itself as `identity`. */
    private readonly open: (identity: ClientIdentity) => Upstream,
    private readonly log: Logger,
  ) {}

  get config(): ServerConfig {
    return this.shared.config;
  }

  get isolation(): Isolation {
    // A modern remote server keeps no session and asks clients nothing: one connection serves every client, each
    // request carrying who sent it.
    if (this.config.kind === 'http' && this.shared.era === 'modern') return 'shared';
    return isolationOf(this.config, this.asksClients);
  }

  /**
   * The connection that serves the legacy client session `sessionId`: the shared one, the shared legacy-era one, or a
   * new one of its own (not yet started; see start).
   */
  connectionFor(sessionId: string, identity: ClientIdentity): Upstream {
    const followEra = this.shared.era === 'modern' && followsLegacyClients(this.config);
    const isolation = followEra ? isolationOf(this.config, this.asksClients) : this.isolation;
    if (isolation === 'shared') return followEra ? this.sharedLegacy() : this.shared;
    const upstream = this.open(identity);
    if (followEra) upstream.followLegacyClient('stop');
    this.own.set(sessionId, upstream);
    return upstream;
  }

  /** The connection opened for the session `sessionId` alone, if any. */
  ownConnection(sessionId: string): Upstream | undefined {
    return this.own.get(sessionId);
  }

  /**
   * Starts `upstream`, a connection connectionFor gave, if it is the session's own; resolves once its first
   * connection attempt has ended (the shared legacy-era connection is started once, by its first client).
   */
  start(upstream: Upstream): Promise<void> {
    if (upstream === this.legacy?.upstream) return this.legacy.started;
    if ([...this.own.values()].includes(upstream)) return upstream.start();
    return Promise.resolve();
  }

  /**
   * The connection that serves the session `sessionId` once `upstream` (connectionFor's) has had its first attempt:
   * a legacy-era connection the server refused gives way to the shared one.
   */
  settle(sessionId: string, upstream: Upstream): Upstream {
    if (!upstream.refusedLegacy) return upstream;
    if (upstream === this.legacy?.upstream) this.legacy = undefined;
    if (this.own.get(sessionId) === upstream) this.own.delete(sessionId);
    return this.shared;
  }

  /** Every connection open to the server: the shared one, the shared legacy-era one, and the sessions' own. */
  get connections(): Upstream[] {
    return [this.shared, ...(this.legacy ? [this.legacy.upstream] : []), ...this.own.values()];
  }

  /** Whether `upstream` serves every client of its era: the shared connection or the shared legacy-era one. */
  isShared(upstream: Upstream): boolean {
    return upstream === this.shared || upstream === this.legacy?.upstream;
  }

  private sharedLegacy(): Upstream {
    if (!this.legacy) {
      const upstream = this.open(PROXY_IDENTITY);
      upstream.followLegacyClient('stop');
      this.legacy = { upstream, started: upstream.start() };
    }
    return this.legacy.upstream;
  }

  /** Stops the session's own connection, if it has one. */
  async release(sessionId: string): Promise<void> {
    const upstream = this.own.get(sessionId);
    if (!upstream) return;
    this.own.delete(sessionId);
    await upstream.stop();
  }

  /**
   * The shared connection asked a client something: a server whose isolation is not set serves every session that
   * starts from now on with a connection of its own, so its questions always have one client to go to.
   */
  sharedAsked(method: string): void {
    if (this.asksClients) return;
    this.asksClients = true;
    if (this.config.kind === 'stdio' && this.config.isolation === undefined) {
      this.log.info(
        { server: this.config.name, method },
        `upstream "${this.config.name}" asks its client questions (${method}): every client that connects from now on gets a connection of its own (set "isolation" to choose)`,
      );
    }
  }

  async stop(): Promise<void> {
    const own = [...this.own.values()];
    this.own.clear();
    const legacy = this.legacy?.upstream;
    this.legacy = undefined;
    await Promise.all([...own.map((u) => u.stop()), this.shared.stop(), ...(legacy ? [legacy.stop()] : [])]);
  }
}

/**
 * Remote servers always get one session per client (a session costs them nothing); the built-in browser backend is
 * the proxy's own and keeps its named browser sessions shared; a command server is what its config says, else
 * shared until it asks a client something.
 */
export function isolationOf(config: ServerConfig, asksClients: boolean): Isolation {
  if (config.kind === 'http') return 'session';
  if (config.kind === 'abp') return 'shared';
  return config.isolation ?? (asksClients ? 'session' : 'shared');
}
