import type { Isolation, ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { ClientIdentity } from './client-identity.js';
import type { Upstream } from './upstream.js';

/**
 * The connections to one configured server: the shared one, started with the gateway, and one per client
 * session when the server is isolated. It decides which connection serves a new session.
 */
export class ServerPool {
  private readonly own = new Map<string, Upstream>();
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

  /** The connection that serves the session `sessionId`: the shared one, or a new one of its own (not yet started). */
  connectionFor(sessionId: string, identity: ClientIdentity): Upstream {
    if (this.isolation === 'shared') return this.shared;
    const upstream = this.open(identity);
    this.own.set(sessionId, upstream);
    return upstream;
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
    await Promise.all([...own.map((u) => u.stop()), this.shared.stop()]);
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
