// Helpers to run the built CLI (dist/cli.js) as a real child process.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ProcessWire, type ProcessExit } from '../../src/transports/process.js';
import { transportOf } from './wire-transport.js';
import { NODE, pidAlive, waitFor } from './fixtures.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/**
 * Installs a folder of pinned test tools (test/conformance, test/clients) from its lock file, as .ci/run does, when
 * one of `entries` (files its packages put there) is missing from this checkout.
 */
export async function installPinned(dir: string, entries: readonly string[]): Promise<void> {
  if (entries.every((entry) => existsSync(entry))) return;
  await promisify(execFile)('npm', ['ci', '--prefix', dir], {
    cwd: REPO_ROOT,
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/**
 * Every process started here gets this variable; the upstreams inherit it from the proxy.
 * leftovers() finds any such process still alive through /proc/<pid>/environ.
 */
const MARKER = 'MCP_OFFLOAD_CLI_TEST';
const MARKER_VALUE = `${process.pid}-${Date.now()}`;

/** Artifacts of the proxies under test go here, not into the shared per-user default directory. */
const ARTIFACT_DIR = mkdtempSync(join(tmpdir(), 'mcp-offload-cli-artifacts-'));

/** What every CLI run gets on top of process.env (for spawners that merge it themselves: connectDirect). */
export const TEST_ENV: Record<string, string> = { [MARKER]: MARKER_VALUE, MCP_OFFLOAD_ARTIFACT_DIR: ARTIFACT_DIR };

export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, ...TEST_ENV, ...extra };
}

/** Removes the artifact directory (afterAll). */
export function removeArtifactDir(): void {
  rmSync(ARTIFACT_DIR, { recursive: true, force: true });
}

/** pids of processes started by this test file (directly or not) that are still alive. Linux only. */
export function leftovers(): number[] {
  if (!existsSync('/proc/self/environ')) return [];
  const needle = `${MARKER}=${MARKER_VALUE}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) continue;
      // A zombie already exited; it only waits for its parent to reap it.
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${entry}/status`, 'latin1'))) continue;
      found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** The JSON objects among `text`'s lines (pino output); throws on a non-empty line that is not JSON. */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .slice(0, text.lastIndexOf('\n') + 1) // a trailing partial line may still be being written
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('mcp-offload listening on '))
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${line.slice(0, 200)}`);
      }
    });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit status; rejects if the process still runs after timeoutMs. */
  exit(timeoutMs?: number): Promise<Exit>;
  /** SIGTERM, SIGKILL after 5 s; resolves when it has exited. */
  stop(): Promise<void>;
}

const running = new Set<() => Promise<void>>();

/** Starts `node dist/cli.js ...args`, capturing stdout and stderr. stdin is a pipe left open. */
export function startCli(args: string[], extraEnv: Record<string, string> = {}): CliProcess {
  const child = spawn(NODE, [CLI, ...args], { cwd: REPO_ROOT, env: cliEnv(extraEnv), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    err += s;
    for (const w of waiters) w();
  });
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const exit = (timeoutMs = 10_000) =>
    Promise.race([
      exited,
      new Promise<never>((_, reject) => {
        const t = setTimeout(
          () => reject(new Error(`cli still running after ${timeoutMs} ms; stderr:\n${err.slice(-2000)}`)),
          timeoutMs,
        );
        void exited.then(() => clearTimeout(t));
      }),
    ]);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    await exited;
  };
  running.add(stop);
  void exited.then(() => running.delete(stop));
  return {
    child,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    waitForStderr: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(err);
          if (!m) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`stderr did not match ${pattern} within ${timeoutMs} ms:\n${err.slice(-2000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    exit,
    stop,
  };
}

/** Runs the CLI to completion (stdin closed at once). */
export async function runCli(args: string[], timeoutMs = 15_000): Promise<Exit & { stdout: string; stderr: string }> {
  const cli = startCli(args);
  cli.child.stdin!.end();
  const status = await cli.exit(timeoutMs);
  return { ...status, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** A pino logger writing into memory; ProcessWire logs the child's stderr lines through it. */
function memoryLogger(): { log: Logger; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), text: () => text };
}

export interface LinearConnection {
  client: Client;
  transport: ProcessWire;
  pid: number;
  /** What ProcessWire logged: the proxy's stderr lines (as `msg`) and skipped stdout lines. */
  transportLog(): string;
  /** The proxy's own stderr lines (its pino JSON), unwrapped from transportLog(). */
  proxyStderr(): string[];
  /** Resolves when the proxy process has exited. */
  exited: Promise<ProcessExit>;
  close(): Promise<void>;
}

/**
 * Spawns `node dist/cli.js ...args` with our ProcessWire (linear line reader, own process
 * group) and connects an SDK client to it.
 */
export async function connectLinear(args: string[], extraEnv: Record<string, string> = {}): Promise<LinearConnection> {
  const memory = memoryLogger();
  // A long grace: close() only ends stdin, so a proxy that ignores EOF is caught rather than signaled.
  const transport = new ProcessWire({
    command: NODE,
    args: [CLI, ...args],
    env: cliEnv(extraEnv),
    cwd: REPO_ROOT,
    log: memory.log,
    killGraceMs: 60_000,
  });
  const client = new Client({ name: 'cli-test', version: '1.0.0' }, { capabilities: {} });
  const exited = new Promise<ProcessExit>((resolve) => {
    client.onclose = () => resolve(transport.exit ?? { code: null, signal: null, stderrTail: [] });
  });
  const close = async () => {
    const kill = setTimeout(() => transport.kill('SIGKILL'), 5000);
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    clearTimeout(kill);
  };
  running.add(close);
  void exited.then(() => running.delete(close));
  try {
    await client.connect(transportOf(transport));
  } catch (error) {
    await close();
    throw new Error(`${String(error)}; proxy stderr:\n${memory.text().slice(-2000)}`, { cause: error });
  }
  const proxyStderr = () =>
    memory
      .text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { stream?: string; msg: string })
      .filter((entry) => entry.stream === 'stderr')
      .map((entry) => entry.msg);
  return { client, transport, pid: transport.pid ?? -1, transportLog: memory.text, proxyStderr, exited, close };
}

/** Ends every CLI started by startCli/connectLinear that still runs, then waits for all leftovers to go. */
export async function stopAllCli(): Promise<void> {
  await Promise.all([...running].map((stop) => stop()));
  await waitFor(() => leftovers().length === 0, 8000, 50, 'all test processes to exit').catch(() => undefined);
}

/** The pid a fixture's `pid` tool reports. */
export async function upstreamPid(client: Client, tool = 'pid'): Promise<number> {
  const pid = Number(textOf(await client.callTool({ name: tool, arguments: {} })));
  expectPid(pid);
  return pid;
}

function expectPid(pid: number): void {
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) throw new Error(`not a live pid: ${pid}`);
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  if (content.length !== 1 || content[0]!.type !== 'text')
    throw new Error(`expected one text block, got ${JSON.stringify(result).slice(0, 300)}`);
  return content[0]!.text!;
}
