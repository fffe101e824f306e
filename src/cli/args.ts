import { parseArgs } from 'node:util';
import type { Disclosure, LogLevel } from '../config/types.js';
import { closestKey } from '../config/suggest.js';

export const USAGE = `mcp-offload: a transparent MCP proxy that keeps binary and oversized tool results out of the model's context

Usage:
  mcp-offload [options] [--] <command> [args...] wrap one stdio MCP server (the first argument that is not one
                                                  of the options below starts its command; after "--" always)
  mcp-offload [options] --url <url>               wrap one remote MCP server (Streamable HTTP, falling back to SSE)
  mcp-offload [options] --config <file.yaml>      run a configured gateway over several servers
  mcp-offload [options] --abp                     run the built-in ABP browser backend; next to -- <command>,
                                                  --url or --config it is added as a server named "browser"
  mcp-offload validate --config <file.yaml>       check a config file and list every problem
  mcp-offload gc [--config <file.yaml>] [--artifact-dir <dir>]
                                                  remove expired artifacts and enforce the quota now
  mcp-offload stats [--config <file.yaml>] [--artifact-dir <dir>] [--audit-log <file>] [--json]
                                                  what the proxy saved, per server and tool: calls, bytes and
                                                  tokens the upstream sent and the client got (from the audit
                                                  log), artifacts stored (from the store)
  mcp-offload login <server> --config <file.yaml> log in to a remote server with OAuth (opens a browser, or
  mcp-offload login --url <url> [--name <name>]   prints the URL to open) and keep its tokens for the proxy
  mcp-offload logout <server> --config <file.yaml>
  mcp-offload logout --url <url> [--name <name>]  forget the tokens of a server

Options:
  --config <file>         YAML configuration (see config/example.yaml)
  --url <url>             remote server to wrap
  --abp                   the built-in browser backend for ABP web apps and extensions (settings: the
                          ABP_* environment variables, or a "type: abp" server in --config)
  --header <name:value>   HTTP header for --url (repeatable)
  --name <name>           name of the wrapped server (default: the package it runs, e.g. "filesystem")
  --http [host:]port      serve MCP over HTTP instead of stdio (host defaults to 127.0.0.1); see "Running as a sidecar"
  --log-level <level>     trace, debug, info, warn, error, fatal or silent (default: info; logs go to stderr)
  --artifact-dir <dir>    where extracted artifacts are stored (then $MCP_OFFLOAD_ARTIFACT_DIR, then
                          artifacts.dir, else a per-user directory under the system's temp directory)
  --disclosure <mode>     how the servers' tools are shown: all (default), search (three tools to search
                          and call them instead of the catalog) or auto (search for clients without a tool
                          search of their own, when the catalog is big); overrides gateway.disclosure
  --dry-run               log what would be stored and rewritten, but change nothing
  -h, --help              show this help
  -v, --version           show the version
`;

export interface CliArgs {
  command: 'run' | 'validate' | 'gc' | 'stats' | 'login' | 'logout' | 'help' | 'version';
  /** `stats`: the audit log to read calls from, and whether to print JSON. */
  auditLog?: string;
  json?: boolean;
  /** The server `login` and `logout` are for (with --config). */
  serverName?: string;
  config?: string;
  url?: string;
  headers: Record<string, string>;
  name?: string;
  http?: { host: string; port: number };
  logLevel?: LogLevel;
  artifactDir?: string;
  dryRun: boolean;
  /** --disclosure: overrides `gateway.disclosure`. */
  disclosure?: Disclosure;
  /** Run the built-in ABP browser backend (alone, or as a server named "browser" next to the others). */
  abp: boolean;
  /** The wrapped server's command line, after `--`. */
  serverCommand: string[];
}

const DISCLOSURES = ['all', 'search', 'auto'];

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  name: { type: 'string' },
  http: { type: 'string' },
  'log-level': { type: 'string' },
  'artifact-dir': { type: 'string' },
  'dry-run': { type: 'boolean' },
  disclosure: { type: 'string' },
  'audit-log': { type: 'string' },
  json: { type: 'boolean' },
  abp: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** node's parseArgs errors, in our words: which option, what was expected, and what may have been meant. */
function optionProblem(error: Error & { code?: string }): string {
  // "Unknown option '--x'", "Option '-c, --config <value>' argument missing": the long name when there is one.
  const option = /'(?:-\w, )?(-{1,2}[^' ]+)/.exec(error.message)?.[1] ?? '';
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const name = option.replace(/^-+/, '').split('=')[0]!;
    const known = Object.keys(OPTIONS);
    const meant = option.startsWith('--') ? closestKey(name, known) : undefined;
    const hint = meant ? ` (did you mean --${meant}?)` : '';
    return `unknown option ${option}${hint}; the wrapped server's own options go after its command, as in: mcp-offload <command> ${option}`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /does not take an argument/.test(error.message) ? `${option} takes no value` : `${option} needs a value`;
  }
  return error.message;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const SUBCOMMANDS = ['validate', 'gc', 'stats', 'login', 'logout'];

/**
 * Where the wrapped server's command starts: after `--`, or else at the first argument that is neither one of our
 * options (with its value) nor a subcommand, as in `mcp-offload npx -y @modelcontextprotocol/server-memory`. Clients
 * that strip one `--` (the MCP Inspector's CLI) then still start the server. Everything from there on is the
 * server's, its own options included.
 */
function splitCommand(argv: readonly string[]): { own: string[]; serverCommand: string[] } {
  let positionals = 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return { own: argv.slice(0, i), serverCommand: argv.slice(i + 1) };
    if (arg.startsWith('-') && arg !== '-') {
      if (!arg.includes('=') && takesValue(arg)) i++;
      continue;
    }
    // A subcommand comes first; login and logout take a server's name after it.
    const subcommand = positionals === 0 && SUBCOMMANDS.includes(arg);
    const serverName = positionals === 1 && (argv.includes('login') || argv.includes('logout'));
    if (!subcommand && !serverName) return { own: argv.slice(0, i), serverCommand: argv.slice(i) };
    positionals++;
  }
  return { own: [...argv], serverCommand: [] };
}

/** Whether `arg` (`--name` or `-x`) is one of our options that takes a value. */
function takesValue(arg: string): boolean {
  const long = arg.startsWith('--') ? arg.slice(2) : undefined;
  const option = Object.entries(OPTIONS).find(([name, o]) =>
    long !== undefined ? name === long : 'short' in o && `-${o.short}` === arg,
  );
  return option?.[1].type === 'string';
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const { own, serverCommand } = splitCommand(argv);
  let parsed;
  try {
    parsed = parseArgs({ args: own, strict: true, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(optionProblem(error as Error & { code?: string }));
  }
  const { values, positionals } = parsed;
  const args: CliArgs = {
    command: 'run',
    headers: {},
    serverCommand,
    dryRun: values['dry-run'] ?? false,
    abp: values.abp ?? false,
  };
  if (values.help) return { ...args, command: 'help' };
  if (values.version) return { ...args, command: 'version' };
  const subcommands = SUBCOMMANDS;
  const takesServer = positionals[0] === 'login' || positionals[0] === 'logout';
  if (takesServer && positionals.length === 2) args.serverName = positionals.pop();
  if (positionals.length > 1 || (positionals.length === 1 && !subcommands.includes(positionals[0]))) {
    throw new UsageError(
      `unexpected argument "${positionals.find((p) => !subcommands.includes(p)) ?? positionals[1]}"`,
    );
  }
  if (positionals[0] !== undefined && subcommands.includes(positionals[0]))
    args.command = positionals[0] as CliArgs['command'];
  args.config = values.config;
  args.url = values.url;
  args.name = values.name;
  args.artifactDir = values['artifact-dir'];
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header expects "Name: value", got "${header}"`);
    args.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  if (values['log-level'] !== undefined) {
    if (!LOG_LEVELS.includes(values['log-level'])) {
      throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
    }
    args.logLevel = values['log-level'] as LogLevel;
  }
  if (values.http !== undefined) args.http = parseListen(values.http);
  if (values.disclosure !== undefined) {
    if (!DISCLOSURES.includes(values.disclosure))
      throw new UsageError(`--disclosure must be one of ${DISCLOSURES.join(', ')}`);
    args.disclosure = values.disclosure as Disclosure;
  }

  const sources = [args.config && '--config', args.url && '--url', serverCommand.length && '-- <command>'].filter(
    Boolean,
  );
  if (args.command === 'validate') {
    if (!args.config) throw new UsageError('validate needs --config <file.yaml>');
    if (sources.length > 1 || args.abp) throw new UsageError('validate takes only --config');
  } else if (args.command === 'login' || args.command === 'logout') {
    const usage = `${args.command} <server> --config <file.yaml>, or ${args.command} --url <url>`;
    if (serverCommand.length || args.abp || args.http) throw new UsageError(`usage: mcp-offload ${usage}`);
    if (args.config && !args.serverName) throw new UsageError(`${args.command} needs the server's name: ${usage}`);
    if (!args.config && !args.url) throw new UsageError(`${args.command} needs a server: ${usage}`);
    if (args.config && args.url) throw new UsageError(`use --config or --url, not both: ${usage}`);
    if (args.url && args.serverName)
      throw new UsageError(
        `with --url, the server's name goes in --name: mcp-offload ${args.command} --url <url> --name <name>`,
      );
  } else if (args.command === 'gc') {
    if (args.url || serverCommand.length || args.abp) throw new UsageError('gc takes only --config and --artifact-dir');
  } else if (args.command === 'stats') {
    if (args.url || serverCommand.length || args.abp || args.http)
      throw new UsageError('stats takes only --config, --artifact-dir, --audit-log and --json');
    if (values['audit-log'] !== undefined) args.auditLog = values['audit-log'];
    args.json = values.json ?? false;
  } else if (sources.length === 0 && !args.abp) {
    throw new UsageError('nothing to proxy: give a server command, --url <url>, --config <file.yaml> or --abp');
  } else if (sources.length > 1) {
    throw new UsageError(`use one of ${sources.join(', ')}, not several`);
  }
  if (Object.keys(args.headers).length && !args.url) throw new UsageError('--header goes with --url');
  if (args.command !== 'stats' && (values['audit-log'] !== undefined || values.json))
    throw new UsageError('--audit-log and --json go with stats');
  return args;
}

function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new UsageError(`--http expects [host:]port, got "${value}"`);
  const host = match[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1';
  return { host, port };
}
