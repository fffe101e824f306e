import type { AuthToken, Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import { Gateway } from '../gateway/gateway.js';
import { serveHttp, type HttpHandle } from '../gateway/http-server.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { StdioServerTransport } from '../transports/stdio-server-transport.js';
import { DecoratedTransport } from '../transports/decorated-transport.js';
import { watchListens } from '../gateway/resource-watch.js';
import { LeanDispatch } from '../fast-path/lean-dispatch.js';
import { bannerFacts, bannerText } from './banner.js';
import { RedisUnreachableError } from '../shared/redis-connection.js';
import { connectSharedState, type SharedState } from '../shared/shared-state.js';

/**
 * How long closing sessions and upstreams may take, after the grace for calls in flight, before the process exits
 * anyway.
 */
const CLOSE_DEADLINE_MS = 10_000;

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
    setTimeout(() => {
      log.error('shutdown took too long; exiting');
      finished(1);
    }, grace + CLOSE_DEADLINE_MS).unref();
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

  let shared: SharedState | undefined;
  if (config.http && config.redis) {
    // Before any upstream starts: a replica that cannot reach what it shares says so at once and starts nothing.
    try {
      shared = await connectSharedState(config.redis, config, log);
    } catch (error) {
      if (!(error instanceof RedisUnreachableError)) throw error;
      process.stderr.write(`mcp-offload: ${error.message}\n`);
      return 1;
    }
  }
  await gateway.start();
  const only = gateway.upstreams.length === 1 ? gateway.upstreams[0] : undefined;
  if (!config.file && only?.state === 'failed') {
    // One wrapped server that cannot be started: nothing to serve, and the client should hear so at once.
    process.stderr.write(`mcp-offload: ${only.lastError ?? `server "${only.name}" cannot be started`}\n`);
    await gateway.stop();
    await shared?.close();
    return 1;
  }
  if (config.http) {
    http = await serveHttp(gateway, { ...config.http, tokens, ...(shared ? { shared } : {}) }, log);
    // Tells wrapper scripts and tests where we listen when port 0 was asked for.
    process.stderr.write(`mcp-offload listening on ${http.url}\n`);
    if (process.stderr.isTTY) process.stderr.write(bannerText(bannerFacts(gateway, http.url)));
  } else {
    const transport = new StdioServerTransport(log);
    transport.onclose = () => void shutdown('stdin closed', false);
    // The SDK's stdio entry decides the connection's era from its first messages (an `initialize`, or a request
    // with a 2026-07-28 envelope) and asks for a session of that era; our transport stays the wire. The decorator
    // keeps our onclose, which the entry would otherwise replace with its own, and sees the listen streams open
    // and close, whose resource URIs are subscribed upstream meanwhile.
    // A legacy session's lean dispatcher takes its calls off the wire before the entry (fast-path/lean-dispatch.ts).
    let lean: LeanDispatch | undefined;
    const hooks = LeanDispatch.beneathEntry(watchListens(gateway.resourceWatch), () => lean);
    serveStdio(
      ({ era }) => {
        const session = gateway.createSession({}, { era });
        lean = era === 'legacy' ? session.lean : undefined;
        return session.server;
      },
      {
        transport: new DecoratedTransport(transport, hooks),
        onerror: (error) => log.debug({ err: error.message }, 'stdio entry'),
      },
    );
    if (process.stdin.isTTY) process.stderr.write(bannerText(bannerFacts(gateway)));
  }
  return done;
}
