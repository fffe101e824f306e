import { defaultConfig, defaultServerSettings, type Config, type ServerConfig } from '../config/types.js';
import { abpEnvironment, abpRequestTimeoutMs, resolveAbpOptions } from '../config/abp.js';
import { UsageError, type CliArgs } from './args.js';
import { nameFromCommand, nameFromUrl } from '../config/server-name.js';

/** What a wrapped server is called until its serverInfo.name is known (see nameFromCommand). */
const STAND_IN_NAME = 'server';

/** The server `--abp` adds next to the others. */
export const ABP_SERVER_NAME = 'browser';

/** The config for `mcp-offload -- <command>` and `mcp-offload --url <url>`: one server, no file (none for `gc`). */
export function singleServerConfig(args: CliArgs): Config {
  const common = defaultServerSettings();
  let server: ServerConfig | undefined;
  if (args.url) {
    const name = args.name ?? nameFromUrl(args.url);
    server = { ...common, kind: 'http', ...named(name), url: args.url, headers: args.headers, transport: 'auto' };
  } else if (args.serverCommand.length) {
    const [command, ...rest] = args.serverCommand;
    const name = args.name ?? nameFromCommand(args.serverCommand);
    server = { ...common, kind: 'stdio', ...named(name), command, args: rest, env: {} };
  }
  return defaultConfig(server ? [server] : []);
}

function named(name: string | undefined): { name: string; nameFromServerInfo?: boolean } {
  return name === undefined ? { name: STAND_IN_NAME, nameFromServerInfo: true } : { name };
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
