import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';

/**
 * The name `mcp-offload -- <command>` gives the wrapped server when `--name` is not given: the package
 * the command runs (`npx -y @modelcontextprotocol/server-filesystem /tmp` → `filesystem`,
 * `npx chrome-devtools-mcp@latest --executablePath /usr/bin/chromium` → `chrome-devtools`), never an
 * argument value. `undefined` when the command line says nothing better than a generic word: the
 * server's own `serverInfo.name` is used then, once it has answered.
 */
export function nameFromCommand(commandLine: readonly string[], options: NameOptions = {}): string | undefined {
  const [command, ...args] = commandLine;
  if (command === undefined) return undefined;
  const program = programName(command);
  if (program === 'uv' && args[0] === 'run') {
    // `uv run [options] server.py` runs its rest like a command line of its own.
    const rest = args.slice(1);
    const at = positionalIndex(rest, ['--with', '--python', '-p', '--directory', '--project', '--from']);
    return at === -1 ? undefined : nameFromCommand(['python', ...rest.slice(at)], options);
  }
  const runner = RUNNERS[program];
  if (runner) {
    const spec = runner(args);
    return spec === undefined ? undefined : nameFromPackage(spec);
  }
  if (INTERPRETERS.has(program)) {
    const module = optionValue(args, ['-m']);
    if (module) return nameFromPackage(module.replace(/_/g, '-'));
    const at = positionalIndex(args, INTERPRETER_OPTIONS_WITH_VALUE);
    return at === -1 ? undefined : nameFromScript(args[at]!, options);
  }
  return specific(stripAffixes(stripExtension(basename(command))));
}

export interface NameOptions {
  /** Where relative script paths are resolved (the server's cwd). */
  cwd?: string;
  /** Reads a package.json's `name`; replaceable in tests. */
  packageNameAt?: (dir: string) => string | undefined;
}

/**
 * `@scope/server-foo@1.2.0` → `foo`; `@playwright/mcp` → `playwright`; `ghcr.io/github/github-mcp-server:1` →
 * `github`.
 */
export function nameFromPackage(spec: string): string | undefined {
  let name = spec.replace(/^(npm|jsr|pypi):/, '');
  name = name.startsWith('@') ? `@${name.slice(1).replace(/@.*$/, '')}` : name.replace(/[@=<>~^].*$/, '');
  name = name.replace(/:[\w.-]+$/, ''); // a container image's tag
  const parts = name.split('/').filter(Boolean);
  let last = parts.pop() ?? '';
  // A package named only "mcp" or "server" is known by its scope or owner.
  while (GENERIC_PACKAGE_NAMES.has(last.toLowerCase()) && parts.length) last = parts.pop()!.replace(/^@/, '');
  return specific(stripAffixes(last));
}

/**
 * `https://mcp.linear.app/sse` → `linear`, `https://api.githubcopilot.com/mcp/` → `githubcopilot`: the host's
 * own label. `undefined` for an address (localhost, an IP), which says nothing about the server.
 */
export function nameFromUrl(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (host === 'localhost' || host.startsWith('[') || /^[\d.]+$/.test(host)) return undefined;
  const labels = host.split('.').filter((label) => !HOST_SERVICE_LABELS.has(label));
  if (labels.length > 1) labels.pop(); // the top-level domain
  return specific(stripAffixes(labels.at(-1) ?? ''));
}

const HOST_SERVICE_LABELS = new Set(['www', 'api', 'mcp', 'server']);

function nameFromScript(script: string, options: NameOptions): string | undefined {
  const path = isAbsolute(script) ? script : resolve(options.cwd ?? process.cwd(), script);
  const own = specific(stripAffixes(stripExtension(basename(path))));
  if (own) return own;
  // `node dist/index.js`: the script is known by the package it belongs to.
  const packageNameAt = options.packageNameAt ?? readPackageName;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const pkg = packageNameAt(dir);
    if (pkg) return nameFromPackage(pkg);
    if (dirname(dir) === dir) break;
  }
  let dir = dirname(path);
  while (BUILD_DIRS.has(basename(dir)) && dirname(dir) !== dir) dir = dirname(dir);
  return specific(stripAffixes(basename(dir)));
}

function readPackageName(dir: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as { name?: unknown }).name;
    return typeof name === 'string' && name ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Package runners: what they run is the first word that is not one of their own options. */
const RUNNERS: Record<string, (args: readonly string[]) => string | undefined> = {
  npx: (args) => optionValue(args, ['-p', '--package']) ?? firstPositional(args, ['-c', '--call']),
  bunx: (args) => optionValue(args, ['-p', '--package']) ?? firstPositional(args),
  // `uvx --from <spec> <tool>`: the spec is often a git URL, the tool a name.
  uvx: (args) =>
    firstPositional(args, ['--from', '--with', '--python', '-p', '--index-url']) ?? optionValue(args, ['--from']),
  pipx: (args) => afterSubcommand(args, 'run', ['--spec'], ['--python', '--index-url']),
  pnpm: (args) => afterSubcommand(args, 'dlx', ['--package'], []),
  yarn: (args) => afterSubcommand(args, 'dlx', ['--package', '-p'], []),
  deno: (args) => firstPositional(args[0] === 'run' ? args.slice(1) : args, ['--config', '-c', '--import-map']),
  docker: (args) => afterSubcommand(args, 'run', [], CONTAINER_OPTIONS_WITH_VALUE),
  podman: (args) => afterSubcommand(args, 'run', [], CONTAINER_OPTIONS_WITH_VALUE),
};

const CONTAINER_OPTIONS_WITH_VALUE = [
  '-e',
  '--env',
  '-v',
  '--volume',
  '--name',
  '--network',
  '-p',
  '--publish',
  '-w',
  '-u',
];
const INTERPRETERS = new Set(['node', 'nodejs', 'tsx', 'ts-node', 'bun', 'python', 'python3', 'ruby']);
const INTERPRETER_OPTIONS_WITH_VALUE = ['-r', '--require', '--import', '--loader', '--experimental-loader', '-W', '-X'];

const GENERIC_PACKAGE_NAMES = new Set(['mcp', 'server', 'mcp-server', 'cli', 'stdio']);
/** Words that name no server in particular: a script or binary called so is known by its package instead. */
const GENERIC_NAMES = new Set([
  'index',
  'main',
  'server',
  'cli',
  'app',
  'start',
  'run',
  'mcp',
  'stdio',
  'bin',
  'serve',
]);
const BUILD_DIRS = new Set(['dist', 'build', 'lib', 'out', 'src', 'bin', 'cjs', 'esm']);

function programName(command: string): string {
  return stripExtension(basename(command)).toLowerCase();
}

function stripExtension(name: string): string {
  return name.replace(/\.(m?js|cjs|ts|mts|py|rb|exe|sh|cmd|bat|ps1)$/i, '');
}

/** `server-filesystem` → `filesystem`, `chrome-devtools-mcp` → `chrome-devtools`, `mcp-server-fetch` → `fetch`. */
function stripAffixes(name: string): string {
  const stripped = name
    .replace(/^(mcp[-_]server[-_]|server[-_]mcp[-_]|mcp[-_]|server[-_])/i, '')
    .replace(/([-_]mcp[-_]server|[-_]server[-_]mcp|[-_]mcp|[-_]server)$/i, '');
  return stripped || name;
}

/** A name the gateway accepts, or undefined when nothing specific is left of it. */
function specific(name: string): string | undefined {
  const tidy = name
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return tidy && !GENERIC_NAMES.has(tidy.toLowerCase()) ? tidy : undefined;
}

function optionValue(args: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (names.includes(arg)) return args[i + 1];
    const eq = arg.indexOf('=');
    if (eq > 0 && names.includes(arg.slice(0, eq))) return arg.slice(eq + 1);
  }
  return undefined;
}

/** Where the first argument is that is neither an option nor the value of one of `withValue` (-1: none). */
function positionalIndex(args: readonly string[], withValue: readonly string[] = []): number {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return i + 1 < args.length ? i + 1 : -1;
    if (!arg.startsWith('-')) return i;
    if (withValue.includes(arg)) i++;
  }
  return -1;
}

function firstPositional(args: readonly string[], withValue: readonly string[] = []): string | undefined {
  const at = positionalIndex(args, withValue);
  return at === -1 ? undefined : args[at];
}

/** `pipx run [--spec pkg] name`: the package is the option's value when given, else the first positional. */
function afterSubcommand(
  args: readonly string[],
  subcommand: string,
  packageOptions: readonly string[],
  withValue: readonly string[],
): string | undefined {
  const at = args.indexOf(subcommand);
  if (at === -1) return undefined;
  const rest = args.slice(at + 1);
  return optionValue(rest, packageOptions) ?? firstPositional(rest, withValue);
}
