import { basename } from 'node:path';
import { defaultConfig, defaultServerSettings, type Config, type ServerConfig } from '../config/types.js';
import type { CliArgs } from './args.js';

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
