import { userInfo } from 'node:os';
import type { AuthToken, Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import { Gateway } from '../gateway/gateway.js';
import { listenErrorText, listenProblem } from './port-check.js';
import type { HttpHandle } from '../http/server.js';
import { StdioWire } from '../transports/stdio.js';
import { holdFrames, type FrameHold } from '../transports/hold.js';
import type { Wire } from '../wire/wire.js';
import { firstClientOf, type FirstClient } from '../upstreams/client-identity.js';
import { bannerFacts, bannerText } from './banner.js';
import type { SharedState } from '../shared/shared-state.js';
import { tierEarly } from './tiering.js';

/**
 * How long closing sessions and upstreams may take, after the grace for calls in flight, before the process exits
 * anyway.
 */
const CLOSE_DEADLINE_MS = 10_000;

/**
 * How long the upstreams wait for the client's first message on stdio before they start as the proxy. A client
 * that has started the proxy sends it at once (`initialize`, or a 2026-07-28 client's `server/discover`); the
 * upstreams are then started as that client.
 */
const FIRST_MESSAGE_WAIT_MS = 1000;

/** Runs the gateway until a signal or the end of stdin; resolves with the exit code. */
export async function run(config: Config, tokens: AuthToken[], log: Logger): Promise<number> {
  // On stdio the proxy has one client for its whole life, and the upstreams speak to it as if directly.
  const gateway = new Gateway(config, log, { oneClient: !config.http });
  let http: HttpHandle | undefined;
  let finished!: (code: number) => void;
  const done = new Promise<number>((resolveDone) => (finished = resolveDone));
  let stopping = false;

  /** Signals end gracefully: no new work, calls in flight get `shutdownGraceMs` to finish, then everything closes. */
  const shutdown = async (reason: string, graceful: boolean) => {
    if (stopping) return;
    stopping = true;
    const grace = graceful ? config.gateway.shutdownGraceMs : 0;
    log.info({ reason, inFlight: gateway.requestsInFlight, graceMs: grace }, 'shutting down');
    setTimeout(
      () => {
        log.error('shutdown took too long; exiting');
        finished(1);
      },
      grace + closeDeadline(config),
    ).unref();
    http?.stopAccepting();
    if (grace > 0 && !(await (http ? http.drain(grace) : gateway.drain(grace)))) {
      log.warn({ inFlight: gateway.requestsInFlight }, 'calls still in flight after the grace period; closing anyway');
    }
    await http?.close().catch((error: unknown) => log.warn({ err: String(error) }, 'closing http failed'));
    await gateway.stop();
    finished(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT', true));
  process.once('SIGTERM', () => void shutdown('SIGTERM', true));
  // A closed terminal: without this the upstreams, in process groups of their own, would outlive us.
  process.once('SIGHUP', () => void shutdown('SIGHUP', false));

  if (config.http) {
    // Before any upstream starts: a port in use is one line, not a stack trace after the servers were started.
    const problem = await listenProblem(config.http.host, config.http.port);
    if (problem) {
      process.stderr.write(`mcp-offload: ${problem}\n`);
      return 1;
    }
  }
  let shared: SharedState | undefined;
  if (config.http && config.redis) {
    // Before any upstream starts: a replica that cannot reach what it shares says so at once and starts nothing.
    // Imported here, as serveHttp is, so stdio does not load Redis and HTTP at every start of a client.
    const { connectSharedState } = await import('../shared/shared-state.js');
    const { RedisUnreachableError } = await import('../shared/redis-connection.js');
    try {
      shared = await connectSharedState(config.redis, config, log);
    } catch (error) {
      if (!(error instanceof RedisUnreachableError)) throw error;
      process.stderr.write(`mcp-offload: ${error.message}\n`);
      return 1;
    }
  }
  const stdio = config.http ? undefined : serveStdioHeld(gateway, log, () => void shutdown('stdin closed', false));
  await gateway.start(stdio && (await firstClient(stdio.hold)));
  // After the start-up code ran (it runs once), before the per-message code does (see tiering.ts).
  const tiering = tierEarly();
  log.debug({ flags: tiering }, tiering.length ? 'V8 optimizes hot code early' : 'V8 tiering left as the user set it');
  const only = gateway.upstreams.length === 1 ? gateway.upstreams[0] : undefined;
  if (!config.file && only?.state === 'failed') {
    // One wrapped server that cannot be started: nothing to serve, and the client should hear so at once.
    process.stderr.write(`mcp-offload: ${only.lastError ?? `server "${only.name}" cannot be started`}\n`);
    await stdio?.close();
    await gateway.stop();
    await shared?.close();
    return 1;
  }
  // The client may have gone while the upstreams started (stdin closed): shutdown is under way.
  if (stopping) return done;
  if (config.http) {
    const { serveHttp } = await import('../http/server.js');
    try {
      http = await serveHttp(gateway, { ...config.http, tokens, ...(shared ? { shared } : {}) }, log);
    } catch (error) {
      // Taken since the check above: the same one line.
      if (!(error as { code?: unknown }).code) throw error;
      process.stderr.write(`mcp-offload: ${listenErrorText(error, config.http.host, config.http.port)}\n`);
      await gateway.stop();
      return 1;
    }
    // Tells wrapper scripts and tests where we listen when port 0 was asked for.
    process.stderr.write(`mcp-offload listening on ${http.url}\n`);
    if (process.stderr.isTTY) process.stderr.write(bannerText(bannerFacts(gateway, http.url)));
  } else {
    stdio?.hold.open();
    if (process.stdin.isTTY) process.stderr.write(bannerText(bannerFacts(gateway)));
  }
  return done;
}

/** The close deadline, long enough for every stdio server's `exitGraceMs` and the SIGKILL after it. */
function closeDeadline(config: Config): number {
  const graces = config.servers.map((server) => (server.kind === 'stdio' ? (server.exitGraceMs ?? 0) : 0));
  return Math.max(CLOSE_DEADLINE_MS, 2 * Math.max(...graces, 0) + 1000);
}

/**
 * The owner of what a stdio session stores: the local user, not the session. A restarted client, or a tool that
 * starts the proxy once per call (the MCP Inspector CLI), is the same person on the same machine and reads by URI
 * what an earlier session was given; another user of a shared artifact directory is not.
 */
export function localUserOwner(): string {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): the uid still tells users apart.
    name = '';
  }
  return `local:${name || (process.getuid?.() ?? 'user')}`;
}

/**
 * Serves the client on stdin/stdout (or on `wire`, in tests), holding its messages until open(): they are read at
 * once, so the upstreams can be started as the client that sends them (firstClient), and handled once the upstreams
 * are up. The session's era is decided by the client's first message (relay/interceptors/handshake.ts).
 */
export function serveStdioHeld(
  gateway: Gateway,
  log: Logger,
  onclose: () => void,
  wire: Wire & { start?(): void } = new StdioWire(log),
): { hold: FrameHold; close(): Promise<void> } {
  const session = gateway.createSession({ owner: localUserOwner() });
  session.attach(wire);
  const hold = holdFrames(wire, onclose);
  wire.start?.();
  // Without its onclose: the proxy is already ending when it closes stdin itself.
  const close = () => {
    hold.quiet();
    return wire.close();
  };
  return { hold, close };
}

/**
 * The client whose first message comes soon, if that message says who it is (firstClientOf); none for a person at
 * a terminal.
 */
async function firstClient(stdio: FrameHold): Promise<FirstClient | undefined> {
  if (process.stdin.isTTY) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const first = await Promise.race([
    stdio.first,
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), FIRST_MESSAGE_WAIT_MS))),
  ]);
  clearTimeout(timer);
  return firstClientOf(first);
}
