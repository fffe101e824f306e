#!/usr/bin/env node
import { resolve } from 'node:path';
import { parseCliArgs, USAGE, UsageError, type CliArgs } from './cli/args.js';
import { ABP_SERVER_NAME, addAbpServer, singleServerConfig } from './cli/single-server.js';
import { ConfigError, UnreadableConfigError, type Config } from './config/types.js';
import { createLogger } from './logger.js';
import { VERSION } from './version.js';
import { configuredTokens, exposureProblem } from './http/auth.js';
import { oauthProblem } from './http/oauth/resource-url.js';
import { SIGNING_KEY_ENV } from './http/link-signer.js';
import type { AuthToken } from './config/types.js';
import { ArtifactStoreError } from './artifacts/types.js';
import { runtimeProblem } from './cli/runtime.js';

async function main(argv: string[]): Promise<number> {
  // First: on an older Node the proxy would start and then fail every message.
  const unfit = runtimeProblem();
  if (unfit) {
    process.stderr.write(`${unfit}\n`);
    return 1;
  }
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // One line, so that it is what the terminal (or a client's log) shows last; the help is one option away.
    process.stderr.write(`mcp-offload: ${error.message} (see mcp-offload --help)\n`);
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
    config = args.config ? await configFile(args.config, args) : singleServerConfig(args);
    if (args.abp) addAbpServer(config, args, process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`mcp-offload: ${error.message}\n`);
      return 2;
    }
    if (error instanceof UnreadableConfigError) {
      process.stderr.write(`mcp-offload: cannot read config file ${error.path}: ${error.reason}\n`);
      return 1;
    }
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n${error.problems.length} problem(s) found.\n`);
    return 1;
  }
  if (args.command === 'login' || args.command === 'logout') return loginCommand(args, config);
  if (args.command === 'validate') {
    // What the proxy would refuse to start with, in this environment, is a problem of the config too.
    const refused = config.http ? httpStartup(config, config.http) : undefined;
    if (refused && 'problem' in refused) {
      process.stderr.write(`${config.file}: ${refused.problem}\n`);
      return 1;
    }
    process.stderr.write(`${config.file}: ok (${config.servers.length} server(s))\n`);
    return 0;
  }
  applyOverrides(config, args);
  if (args.command === 'gc') {
    const [{ runGc }, { storeOptions }] = await Promise.all([
      import('./artifacts/gc-command.js'),
      import('./artifacts/options.js'),
    ]);
    try {
      process.stderr.write(`${await runGc(storeOptions(config), createLogger(config.logLevel))}\n`);
    } catch (error) {
      // An unwritable directory or an unreachable bucket: its message says which and why; a stack would not.
      if (!(error instanceof ArtifactStoreError)) throw error;
      process.stderr.write(`mcp-offload gc: ${error.message}\n`);
      return 1;
    }
    return 0;
  }
  if (args.command === 'stats') return statsCommand(args, config);
  let tokens: AuthToken[] = [];
  if (config.http) {
    const started = httpStartup(config, config.http);
    if ('problem' in started) {
      process.stderr.write(`mcp-offload: ${started.problem}\n`);
      return 1;
    }
    tokens = started.tokens;
  }
  // Loaded only to run: --help, --version and validate answer without loading the MCP SDK and the rest.
  const { run } = await import('./cli/run.js');
  return run(config, tokens, createLogger(config.logLevel));
}

/**
 * The config file, read and checked. Imported here, not at the top: a one-line wrap reads no file, and the loader
 * brings the YAML parser and the schema validator (a few MiB a proxy would hold for nothing).
 */
async function configFile(path: string, args: CliArgs): Promise<Config> {
  const { loadConfigFile } = await import('./config/load.js');
  return loadConfigFile(resolve(path), process.env, {
    allowNoServers: args.command === 'gc' || args.command === 'stats',
    extraServers: args.abp ? [ABP_SERVER_NAME] : [],
    checkCommands: args.command === 'validate',
  });
}

/** `mcp-offload stats`: a table on stdout, or JSON with --json. */
async function statsCommand(args: CliArgs, config: Config): Promise<number> {
  const [{ statsReport, statsTable }, { storeOptions }] = await Promise.all([
    import('./cli/stats.js'),
    import('./artifacts/options.js'),
  ]);
  try {
    const report = await statsReport(storeOptions(config), args.auditLog, createLogger('warn'));
    process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : statsTable(report));
    return 0;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!(error instanceof ArtifactStoreError) && code !== 'ENOENT' && code !== 'EACCES') throw error;
    process.stderr.write(`mcp-offload stats: ${(error as Error).message}\n`);
    return 1;
  }
}

/**
 * The checks before serving HTTP: the tokens from the environment, the signing key's length, no listening beyond
 * this machine without authentication, and a usable `auth.oauth`. The tokens, or the first problem.
 */
function httpStartup(config: Config, http: NonNullable<Config['http']>): { tokens: AuthToken[] } | { problem: string } {
  let tokens: AuthToken[];
  try {
    tokens = configuredTokens(config.auth, process.env);
  } catch (error) {
    return { problem: (error as Error).message };
  }
  const key = config.artifacts.links.signingKey;
  if (key !== undefined && key.length < 32)
    return { problem: `${SIGNING_KEY_ENV} must be at least 32 characters long` };
  const problem = exposureProblem(http.host, tokens, config.auth) ?? oauthProblem(config.auth.oauth, config, http.host);
  return problem ? { problem } : { tokens };
}

/** `login` and `logout`: the named server of the config file, or the wrapped --url. */
async function loginCommand(args: CliArgs, config: Config): Promise<number> {
  const name = args.serverName;
  const server = name === undefined ? config.servers[0] : config.servers.find((s) => s.name === name);
  if (!server) {
    const known = config.servers.map((s) => `"${s.name}"`).join(', ') || 'none';
    process.stderr.write(
      `mcp-offload ${args.command}: ${config.file} has no server "${name}" (its servers: ${known})\n`,
    );
    return 2;
  }
  if (server.kind !== 'http') {
    process.stderr.write(
      `mcp-offload ${args.command}: server "${server.name}" is not a remote server ("url"); only those log in with OAuth\n`,
    );
    return 2;
  }
  const { runLogin, runLogout } = await import('./cli/login.js');
  return args.command === 'login' ? runLogin(server) : runLogout(server);
}

function applyOverrides(config: Config, args: CliArgs): void {
  if (args.logLevel) config.logLevel = args.logLevel;
  if (args.http) config.http = args.http;
  // --artifact-dir, then the environment (a container sets it), then the config file.
  const artifactDir = args.artifactDir ?? (process.env.MCP_OFFLOAD_ARTIFACT_DIR || undefined);
  if (artifactDir) config.artifacts.dir = resolve(artifactDir);
  if (args.dryRun) config.pipeline = { ...config.pipeline, dryRun: true };
  if (args.disclosure) config.gateway.disclosure = args.disclosure;
  const signingKey = process.env[SIGNING_KEY_ENV];
  if (signingKey) config.artifacts.links.signingKey = signingKey;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`mcp-offload: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
