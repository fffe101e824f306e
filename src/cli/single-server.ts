import { basename } from 'node:path';
import { defaultConfig, defaultServerSettings, type Config, type ServerConfig } from '../config/types.js';
import { abpEnvironment, abpRequestTimeoutMs, resolveAbpOptions } from '../upstreams/abp/options.js';
import { UsageError, type CliArgs } from './args.js';

/** The server `--abp` adds next to the others. */
export const ABP_SERVER_NAME = 'browser';

/** The config for `mcp-offload -- <command>` and `mcp-offload --url <url>`: one server, no file (none for `gc`). */
export function singleServerConfig(args: CliArgs): Config {
  const common = defaultServerSettings();
  let server: ServerConfig | undefined;
  if (args.url) {
    server = { ...common, kind: 'http', name: args.name ?? nameFromUrl(args.url), url: args.url, headers: args.headers, transport: 'auto' };
  } else if (args.serverCommand.length) {
    const [command, ...rest] = args.serverCommand;
    server = { ...common, kind: 'stdio', name: args.name ?? nameFromCommand(args.serverCommand), command, args: rest, env: {} };
  }
  return defaultConfig(server ? [server] : []);
}

/** `npx -y @scope/server-foo --flag` → `server-foo`: the last word that is not an option. */
export function nameFromCommand(commandLine: readonly string[]): string {
  const words = commandLine.filter((w) => !w.startsWith('-'));
  const meaningful = [...words].reverse().find((w) => !/^(npx|node|uvx|python3?|deno|bun|docker|run|stdio)$/.test(basename(w)));
  return tidy(basename(meaningful ?? words[0] ?? 'server').replace(/\.(m?js|ts|py)$/, '').replace(/@[\d.]+.*$/, ''));
}

function nameFromUrl(url: string): string {
  try {
    return tidy(new URL(url).hostname);
  } catch {
    return 'remote';
  }
}

function tidy(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '-').replace(/^-+|-+$/g, '').slice(0, 64) || 'server';
}

/**
 * `--abp`: the built-in browser backend, configured by the ABP_* environment variables, added to the
 * config as a server named "browser" (or `--name` when it runs alone).
 */
export function addAbpServer(config: Config, args: CliArgs, env: NodeJS.ProcessEnv): void {
  const alone = !args.config && !args.url && args.serverCommand.length === 0;
  const name = alone && args.name ? args.name : ABP_SERVER_NAME;
  if (config.servers.some((s) => s.name === name)) {
    throw new UsageError(`--abp adds a server named "${name}", but ${config.file ?? 'the config'} already has one`);
  }
  const problems = abpEnvironment(env).problems;
  if (problems.length) throw new UsageError(problems.join('; '));
  const abp = resolveAbpOptions({}, env);
  config.servers.push({ ...defaultServerSettings(), kind: 'abp', name, timeoutMs: abpRequestTimeoutMs(abp), abp });
}
