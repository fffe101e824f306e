import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { CancelledError, ConnectionClosedError, RpcError, unavailable } from '../rpc/errors.js';
import { onAbort, type Signal } from '../rpc/cancellation.js';
import { ProcessWire, SpawnError } from '../transports/process.js';
import { Frame } from '../wire/frame.js';
import type { ClientIdentity } from './client-identity.js';
import { envelopeMeta, type Connection, type EraPlan, type PriorEra } from './connect.js';
import type { LoginRequiredError } from './oauth/login-required.js';
import type { UpstreamLogin } from './oauth/upstream-login.js';
import type { RemoteWire } from './remote.js';
import { RestartSchedule } from './restart-schedule.js';

/**
 * A process that has not carried a client's request is not kept waiting for (it may ignore the end of its stdin
 * for the whole exit grace): nothing of a client's can be lost with it.
 */
const UNUSED_EXIT_GRACE_MS = 100;

/** `needs-login`: a remote server that wants an OAuth login; it is connected once `mcp-offload login` has run. */
export type UpstreamState = 'connecting' | 'up' | 'down' | 'failed' | 'needs-login' | 'stopped';

/** What an upstream decides of a failed attempt beyond supervision (its era): try again at once, or stop. */
export type Refusal = { again: PriorEra | undefined } | 'stopped' | undefined;

/** What the supervisor needs of the upstream it supervises (upstream.ts). */
export interface SupervisorHost {
  readonly name: string;
  readonly config: ServerConfig;
  readonly log: Logger;
  /** Who the connections introduce themselves as. */
  readonly identity: ClientIdentity;
  /** How attempt finds the server's era; `prior`: an era verdict for this attempt only. */
  plan(prior?: PriorEra): EraPlan;
  /** Opens a connection for attempt `attempt` (the handshake). */
  open(attempt: number, plan: EraPlan): Promise<Connection>;
  /**
   * A connection past its handshake: what else it takes to serve it (its lists). `again`: the connection was closed
   * and another attempt must follow at once (the server turned out to be of another era). Throws to fail it.
   */
  opened(connection: Connection, plan: EraPlan, attempt: number): Promise<'up' | 'again'>;
  /** A failed attempt: what its era means (see Refusal); undefined leaves it to supervision. */
  refused(error: unknown, plan: EraPlan): Promise<Refusal>;
  /** The connection is up and ready: announce it and restore what clients set up on earlier connections. */
  up(connection: Connection): Promise<void>;
  /** The connection went away: what was bound to it goes too. */
  closed(): void;
  /** No connection for a while (a login is needed, or the server cannot be started): its catalog is empty now. */
  lost(): void;
  stateChanged(): void;
}

/**
 * The life of the connections to one server: attempts, restarts with exponential backoff when one closes, a login
 * waited for when the server wants one (the token file is watched), a server that stopped answering ended and
 * started again. Calls wait for a connection (`ready`) as the server's `whenDown` says. The proxy never dies with an
 * upstream.
 */
export class Supervisor {
  state: UpstreamState = 'connecting';
  /** Why the upstream is not up, for error messages and /readyz. */
  lastError?: string;
  restarts = 0;
  /** The outcome of the last check that an upstream that let a request time out still answers. */
  lastLivenessCheck?: Promise<'alive' | 'hung'>;
  private current?: Connection;
  /** The connection has carried a client's request: it gets the whole exit grace when it is closed. */
  private carried = false;
  /** Counts attempts, so an attempt overtaken by a newer one (a re-initialization) drops its result. */
  private attempt = 0;
  private readonly schedule: RestartSchedule;
  private restartTimer?: NodeJS.Timeout;
  private upSince = 0;
  private stopping = false;
  /** Why a hung upstream was ended, for the messages that follow. */
  private hung?: string;
  private checking?: Promise<void>;
  private readonly waiters = new Set<() => void>();
  /** The attempt a new login started (see afterLogin). */
  private loggingIn?: Promise<void>;
  /** A re-initialization under way (reopen): calls wait for the connection it makes. */
  private reopening?: Promise<void>;

  /** A remote server's OAuth: its provider, its token file, and telling "needs a login" from an outage. */
  private oauth?: UpstreamLogin;

  constructor(private readonly host: SupervisorHost) {
    this.schedule = new RestartSchedule(host.config.restart);
  }

  get login(): UpstreamLogin | undefined {
    return this.oauth;
  }

  get connection(): Connection | undefined {
    return this.current;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Whether the connection has carried a client's request (a reconnect then closes it with its whole grace). */
  get used(): boolean {
    return this.carried;
  }

  /** Whether an attempt is the current one (an attempt overtaken by a newer one drops what it made). */
  isCurrent(attempt: number): boolean {
    return attempt === this.attempt;
  }

  /** An attempt to connect. Never throws: a failure is logged and retried in the background. */
  async connect(prior?: PriorEra): Promise<void> {
    // Loaded with the first connection of a remote server: OAuth comes with the SDK's client package, which a proxy
    // of local servers never needs in memory.
    const { config } = this.host;
    if (config.kind === 'http' && !this.oauth) {
      const { UpstreamLogin } = await import('./oauth/upstream-login.js');
      this.oauth ??= new UpstreamLogin(config);
    }
    const attempt = ++this.attempt;
    this.setState(this.state === 'connecting' ? 'connecting' : 'down');
    const plan = this.host.plan(prior);
    let connection: Connection;
    try {
      connection = await this.host.open(attempt, plan);
    } catch (error) {
      await this.failed(error, attempt, plan);
      return;
    }
    if (this.stopping || attempt !== this.attempt) {
      await this.closeUnused(connection);
      return;
    }
    this.current = connection;
    this.carried = false;
    let outcome: 'up' | 'again';
    try {
      outcome = await this.host.opened(connection, plan, attempt);
    } catch (error) {
      if (attempt !== this.attempt) return;
      // A server that lets the handshake through unauthorized and refuses the lists wants a login as much as one that
      // refuses the handshake: restarts would only meet the refusal again, each after a new discovery of its metadata.
      const needed = this.login?.failure(error);
      if (needed) {
        this.needLogin(needed);
        return;
      }
      this.lastError = `listing its tools, prompts and resources failed: ${errorText(error)}`;
      this.host.log.error({ err: this.lastError }, `upstream "${this.host.name}" connected but could not be listed`);
      this.current = undefined;
      await this.closeUnused(connection);
      this.afterFailure();
      return;
    }
    if (outcome === 'again') {
      this.current = undefined;
      await this.closeUnused(connection);
      await this.connect();
      return;
    }
    if (attempt !== this.attempt) return;
    this.upSince = Date.now();
    this.lastError = undefined;
    this.setState('up');
    this.wakeWaiters();
    await this.host.up(connection);
  }

  /** Calls wait for `work` (a re-initialization) before they take the connection. */
  async holdCalls(work: Promise<void>): Promise<void> {
    this.reopening = work;
    try {
      await work;
    } finally {
      if (this.reopening === work) this.reopening = undefined;
    }
  }

  /**
   * Closes the connection (or drops the attempt under way) and opens a new one: MCP has no re-initialize, so a
   * connection that must introduce itself again is made anew.
   */
  async reopen(): Promise<void> {
    clearTimeout(this.restartTimer);
    this.attempt++;
    const previous = this.current;
    this.current = undefined;
    if (previous && this.carried) await closeQuietly(previous);
    else if (previous) await this.closeUnused(previous);
    this.schedule.reset();
    this.setState('connecting');
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.login?.unwatch();
    clearTimeout(this.restartTimer);
    const connection = this.current;
    this.current = undefined;
    this.setState('stopped');
    this.wakeWaiters();
    if (connection) await closeQuietly(connection);
  }

  /** The connection, when it is up now: what `ready` resolves with at once, without a turn of the event loop. */
  readyNow(): Connection | undefined {
    const current = this.current;
    if (this.state !== 'up' || !current) return undefined;
    this.carried = true;
    return current;
  }

  /**
   * The connection a request goes on, once there is one: at once when up; else as `whenDown` says (an error, or a
   * wait of up to the server's timeout for it to come back); a server waiting for a login is answered with the
   * command to run. The connection counts as carrying a client's request from now on.
   */
  async ready(method: string, signal?: Signal): Promise<Connection> {
    const now = this.readyNow();
    if (now) return now;
    if (this.reopening) {
      await this.reopening;
      return this.ready(method, signal);
    }
    if (this.loggingIn) {
      await this.loggingIn;
      if (this.state === 'up') return this.ready(method, signal);
    }
    const { name, config } = this.host;
    if (this.state === 'needs-login') {
      // A login that has just written the file is used by this call, not only by the next poll.
      if (this.login?.changedSinceWatch()) {
        await this.afterLogin();
        if ((this.state as UpstreamState) === 'up') return this.ready(method, signal);
      }
      throw unavailable(this.lastError ?? `upstream "${name}" needs a login`);
    }
    const why = `upstream "${name}" is not available${this.lastError ? ` (${this.lastError})` : ''}`;
    if (this.state === 'failed' || this.state === 'stopped' || config.whenDown === 'error') {
      throw unavailable(
        `${why}${this.state === 'down' || this.state === 'connecting' ? '; it is being restarted' : ''}`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(unavailable(`${why}; waited ${config.timeoutMs} ms for it to come back before ${method}`));
      }, config.timeoutMs);
      const wake = () => {
        clearTimeout(timer);
        stopListening?.();
        resolve();
      };
      const stopListening = signal
        ? onAbort(signal, () => {
            this.waiters.delete(wake);
            clearTimeout(timer);
            reject(new CancelledError(signal.reason ?? 'request cancelled'));
          })
        : undefined;
      this.waiters.add(wake);
    });
    return this.ready(method, signal);
  }

  /**
   * For a call to a tool of this server while it waits for a login (its tools are not listed then): a login written
   * since is used at once, not only at the next look at the file. Whether the server is up now.
   */
  async loginWritten(): Promise<boolean> {
    if (this.loggingIn) await this.loggingIn;
    else if (this.state === 'needs-login' && this.login?.changedSinceWatch()) await this.afterLogin();
    return this.state === 'up';
  }

  /**
   * A remote server's request failed on its authorization (the wire answered it with an error frame): tokens that
   * were refused and could not be refreshed need a login, not more requests. Throws the error for the client then.
   */
  checkLogin(connection: Connection, before: Error | undefined): void {
    const after = (connection.wire as RemoteWire).authFailure;
    if (after === undefined || after === before) return;
    const needed = this.login?.failure(after);
    if (!needed) return;
    this.needLogin(needed);
    throw unavailable(needed.message);
  }

  /**
   * After a timeout: a server that still answers ping is only slow; one that does not is hung, and is ended so
   * supervision starts a fresh one.
   */
  checkAlive(): void {
    const connection = this.current;
    if (this.checking || this.state !== 'up' || !connection) return;
    const timeout = Math.min(Math.max(this.host.config.timeoutMs, 1000), 10_000);
    // The modern era has no ping; asking the server what it offers is as cheap.
    const question =
      connection.era === 'modern'
        ? Frame.request(0, 'server/discover', { _meta: envelopeMeta(this.host.identity, connection.protocolVersion) })
        : Frame.request(0, 'ping');
    const check = connection.peer.request(question, { timeoutMs: timeout }).then(
      () => 'alive' as const,
      async () => {
        if (this.current !== connection) return 'alive' as const;
        this.hung = `it stopped answering (no reply to ping within ${timeout} ms after a request timed out)`;
        this.host.log.warn(`upstream "${this.host.name}" is hung; restarting it`);
        if (connection.wire instanceof ProcessWire) connection.wire.kill('SIGKILL');
        else await connection.peer.close();
        return 'hung' as const;
      },
    );
    this.checking = check.then(() => undefined).finally(() => (this.checking = undefined));
    this.lastLivenessCheck = check;
  }

  /** An error of a relayed request as the client gets it (a lost connection, a login it needs). */
  describe(error: unknown, method: string): Error {
    if (error instanceof RpcError || error instanceof CancelledError) return error;
    // Tokens that were refused and could not be refreshed: a login, not a restart, brings the server back.
    const needed = this.login?.failure(error);
    if (needed) {
      this.needLogin(needed);
      return unavailable(needed.message);
    }
    if (error instanceof ConnectionClosedError) {
      const why = this.lastError ?? 'the connection closed';
      return unavailable(`upstream "${this.host.name}" failed while handling ${method}: ${why}; it is being restarted`);
    }
    return error instanceof Error ? error : new Error(String(error));
  }

  /** The connection of attempt `attempt` closed (the process exited, the session ended). */
  closed(attempt: number): void {
    const connection = this.current;
    if (attempt !== this.attempt || !connection) return;
    this.current = undefined;
    this.host.closed();
    if (this.stopping) return;
    const exit = connection.wire instanceof ProcessWire ? connection.wire.exit : undefined;
    this.lastError = this.hung
      ? this.hung
      : exit
        ? `the process exited (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})` +
          (exit.stderrTail.length ? `; last stderr: ${exit.stderrTail.slice(-3).join(' | ')}` : '')
        : 'the connection closed';
    this.hung = undefined;
    this.host.log.warn({ err: this.lastError }, `upstream "${this.host.name}" went down`);
    if (Date.now() - this.upSince > 10_000) this.schedule.reset();
    this.afterFailure();
  }

  private async failed(error: unknown, attempt: number, plan: EraPlan): Promise<void> {
    if (attempt !== this.attempt) return;
    // A login that is needed (the flow refused, or asked for a browser) is found in the error's causes.
    const needed = this.login?.failure(error);
    if (needed) {
      this.needLogin(needed);
      return;
    }
    const refusal = await this.host.refused(error, plan);
    if (refusal === 'stopped') {
      this.lastError = `it refuses the legacy era (${errorText(error)})`;
      await this.stop();
      return;
    }
    if (refusal) {
      await this.connect(refusal.again);
      return;
    }
    this.lastError = errorText(error);
    if (error instanceof SpawnError && error.permanent) {
      // A command that does not exist will not exist on the next try either.
      const source = this.host.config.source;
      this.host.log.error(
        { err: this.lastError, ...(source ? { config: `${source.file}:${source.line}:${source.column}` } : {}) },
        `upstream "${this.host.name}" cannot be started; it is not retried`,
      );
      this.giveUp();
      return;
    }
    this.host.log.error({ err: this.lastError }, `could not connect to upstream "${this.host.name}"`);
    this.afterFailure();
  }

  private afterFailure(): void {
    if (this.stopping) return;
    const delay = this.schedule.next();
    if (delay === undefined) {
      this.host.log.error({ attempts: this.schedule.attempts }, `giving up on upstream "${this.host.name}"`);
      this.giveUp();
      return;
    }
    this.setState('down');
    this.host.log.info({ delayMs: delay, attempt: this.schedule.attempts }, `restarting upstream "${this.host.name}"`);
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
    const connection = this.current;
    this.current = undefined;
    if (connection) void closeQuietly(connection);
    const first = this.state !== 'needs-login';
    // Said once, not on every call or look at the file: the client hears it with each call it routes here.
    if (this.lastError !== error.message) this.host.log.warn({ command: error.command }, error.message);
    this.lastError = error.message;
    this.setState('needs-login');
    this.wakeWaiters();
    if (first) this.host.lost();
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
    this.host.log.info(`the token file of upstream "${this.host.name}" changed; connecting`);
    this.schedule.reset();
    this.loggingIn = this.connect().finally(() => (this.loggingIn = undefined));
    return this.loggingIn;
  }

  private giveUp(): void {
    this.setState('failed');
    this.wakeWaiters();
    this.host.lost();
  }

  private wakeWaiters(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  private setState(state: UpstreamState): void {
    if (this.state === state) return;
    this.state = state;
    this.host.stateChanged();
  }

  /**
   * Closes a connection that carried no client's request: the one opened before the first client introduced
   * itself, closed so the server meets the client (reopen), or an attempt overtaken or failed.
   */
  private async closeUnused(connection: Connection): Promise<void> {
    const { wire } = connection;
    const { config } = this.host;
    if (wire instanceof ProcessWire) {
      const configured = config.kind === 'stdio' ? config.exitGraceMs : undefined;
      await wire.close(Math.min(UNUSED_EXIT_GRACE_MS, configured ?? UNUSED_EXIT_GRACE_MS)).catch(() => undefined);
    }
    await closeQuietly(connection);
  }
}

async function closeQuietly(connection: Connection): Promise<void> {
  await connection.peer.close().catch(() => undefined);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
