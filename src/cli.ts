#!/usr/bin/env node
import { resolve } from 'node:path';
import { parseCliArgs, USAGE, UsageError, type CliArgs } from './cli/args.js';
import { ABP_SERVER_NAME, addAbpServer, singleServerConfig } from './cli/single-server.js';
import { loadConfigFile } from './config/load.js';
import { ConfigError, type Config } from './config/types.js';
import { createLogger, type Logger } from './logger.js';
import { Gateway } from './gateway/gateway.js';
import { serveHttp, type HttpHandle } from './gateway/http-server.js';
import { StdioServerTransport } from './transports/stdio-server-transport.js';
import { VERSION } from './version.js';
import { bannerFacts, bannerText } from './cli/banner.js';
import { runGc } from './artifacts/gc-command.js';
import { storeOptions } from './artifacts/options.js';
import { configuredTokens, exposureProblem } from './http/auth.js';
import { SIGNING_KEY_ENV } from './http/link-signer.js';
import type { AuthToken } from './config/types.js';

/** How long closing sessions and upstreams may take, after the grace for calls in flight, before the process exits anyway. */
const CLOSE_DEADLINE_MS = 10_000;

async function main(argv: string[]): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`mcp-offload: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (args.command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.command === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }

  let config: Config;
  try {
    config = args.config
      ? await loadConfigFile(resolve(args.config), process.env, {
          allowNoServers: args.command === 'gc',
          extraServers: args.abp ? [ABP_SERVER_NAME] : [],
          checkCommands: args.command === 'validate',
        })
      : singleServerConfig(args);
    if (args.abp) addAbpServer(config, args, process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`mcp-offload: ${error.message}\n`);
      return 2;
    }
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n${error.problems.length} problem(s) found.\n`);
    return 1;
  }
  if (args.command === 'validate') {
    process.stderr.write(`${config.file}: ok (${config.servers.length} server(s))\n`);
    return 0;
  }
  applyOverrides(config, args);
  if (args.command === 'gc') {
    process.stderr.write(`${await runGc(storeOptions(config), createLogger(config.logLevel))}\n`);
    return 0;
  }
  let tokens: AuthToken[] = [];
  if (config.http) {
    try {
      tokens = configuredTokens(config.auth, process.env);
    } catch (error) {
      process.stderr.write(`mcp-offload: ${(error as Error).message}\n`);
      return 1;
    }
    const key = config.artifacts.links.signingKey;
    if (key !== undefined && key.length < 32) {
      process.stderr.write(`mcp-offload: ${SIGNING_KEY_ENV} must be at least 32 characters long\n`);
      return 1;
    }
    const problem = exposureProblem(config.http.host, tokens, config.auth);
    if (problem) {
      process.stderr.write(`mcp-offload: ${problem}\n`);
      return 1;
    }
  }
  return run(config, tokens, createLogger(config.logLevel));
}

function applyOverrides(config: Config, args: CliArgs): void {
  if (args.logLevel) config.logLevel = args.logLevel;
  if (args.http) config.http = args.http;
  // --artifact-dir, then the environment (a container sets it), then the config file.
  const artifactDir = args.artifactDir ?? (process.env.MCP_OFFLOAD_ARTIFACT_DIR || undefined);
  if (artifactDir) config.artifacts.dir = resolve(artifactDir);
  if (args.dryRun) config.pipeline = { ...config.pipeline, dryRun: true };
  const signingKey = process.env[SIGNING_KEY_ENV];
  if (signingKey) config.artifacts.links.signingKey = signingKey;
}

async function run(config: Config, tokens: AuthToken[], log: Logger): Promise<number> {
  const gateway = new Gateway(config, log);
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

  await gateway.start();
  const only = gateway.upstreams.length === 1 ? gateway.upstreams[0] : undefined;
  if (!config.file && only?.state === 'failed') {
    // One wrapped server that cannot be started: nothing to serve, and the client should hear so at once.
    process.stderr.write(`mcp-offload: ${only.lastError ?? `server "${only.name}" cannot be started`}\n`);
    await gateway.stop();
    return 1;
  }
  if (config.http) {
    http = await serveHttp(gateway, { ...config.http, tokens }, log);
    // Tells wrapper scripts and tests where we listen when port 0 was asked for.
    process.stderr.write(`mcp-offload listening on ${http.url}\n`);
    if (process.stderr.isTTY) process.stderr.write(bannerText(bannerFacts(gateway, http.url)));
  } else {
    const transport = new StdioServerTransport(log);
    transport.onclose = () => void shutdown('stdin closed', false);
    await gateway.createSession().connect(transport);
    // The session's Server replaced onclose with its own wrapper that still calls ours.
    if (process.stdin.isTTY) process.stderr.write(bannerText(bannerFacts(gateway)));
  }
  return done;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`mcp-offload: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
