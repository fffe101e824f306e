// Paths of the fixture MCP servers and helpers to talk to them directly (no proxy).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from './ports.js';

const fixture = (file: string): string => fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url));

/** Absolute paths of the fixture servers (run them with `node <path>`). */
export const FIXTURES = {
  basic: fixture('basic-server.mjs'),
  crash: fixture('crash-server.mjs'),
  noisy: fixture('noisy-stdout-server.mjs'),
  slow: fixture('slow-server.mjs'),
  dynamic: fixture('dynamic-tools-server.mjs'),
  bigResult: fixture('big-result-server.mjs'),
  artifact: fixture('artifact-server.mjs'),
  clientView: fixture('client-view-server.mjs'),
  wireEdges: fixture('wire-edges-server.mjs'),
  /** A 2026-07-28 server on SDK v2 (it serves the legacy era too). */
  modern: fixture('modern-server.mjs'),
  /** Written without an SDK: it sends numbers a double cannot hold, and echoes requests as it received them. */
  exactNumbers: fixture('exact-numbers-server.mjs'),
  /** Written without an SDK: an MCP App (a tool linked to a ui:// view, an app-only tool), bytes in app-payloads.mjs. */
  app: fixture('app-server.mjs'),
} as const;

export type FixtureName = keyof typeof FIXTURES;

/** The node binary running the tests; use it as the `command` for fixtures. */
export const NODE: string = process.execPath;

const require = createRequire(import.meta.url);

/** Absolute path of @modelcontextprotocol/server-everything's entry (dist/index.js). */
export const EVERYTHING_ENTRY: string = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** Capabilities declared by connectDirect's client. */
export const CLIENT_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

export interface DirectOptions {
  /** StdioClientTransport read limit; the SDK default is 10 MiB. */
  maxBufferSize?: number;
  cwd?: string;
  clientName?: string;
  capabilities?: ClientCapabilities;
  /** Copy the child's stderr to ours as well (debugging). */
  echoStderr?: boolean;
}

/** Minimal shape shared by every direct (proxy-less) connection. */
export interface DirectConnection {
  client: Client;
  close(): Promise<void>;
}

/** What connectDirect returns: a client connected over stdio to a spawned process. */
export interface StdioConnection extends DirectConnection {
  transport: StdioClientTransport;
  /** pid of the spawned process. */
  pid: number;
  /** All the child wrote to stderr so far (last 1 MiB). */
  stderr(): string;
  /** Resolve when the child's stderr matches `pattern` (checked against everything so far). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Errors reported through client.onerror (e.g. unparsable stdout lines). */
  errors: Error[];
  /** Resolves when the client's connection closes (close() or the child exiting). */
  closed: Promise<void>;
  isClosed(): boolean;
  /** Close the client (ends stdin; SDK escalates to SIGTERM/SIGKILL after 2 s each). Idempotent. */
  close(): Promise<void>;
}

const open = new Set<StdioConnection>();
const STDERR_CAP = 1024 * 1024;

function env(extra?: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return { ...out, ...extra };
}

/**
 * Spawn `command args` and connect an SDK Client to it over stdio.
 * The child gets the full parent env plus `extraEnv` (the SDK alone would pass a minimal env).
 * Its stderr is piped and kept (see stderr()/waitForStderr()), not printed.
 * If connecting fails, the error is rethrown with a `stderr` string property added.
 */
export async function connectDirect(
  command: string,
  args: string[] = [],
  extraEnv?: Record<string, string>,
  options: DirectOptions = {},
): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: env(extraEnv),
    stderr: 'pipe',
    cwd: options.cwd,
    ...(options.maxBufferSize !== undefined && { maxBufferSize: options.maxBufferSize }),
  });

  let stderrText = '';
  const waiters = new Set<() => void>();
  transport.stderr?.on('data', (chunk: Buffer) => {
    const s = chunk.toString('utf8');
    if (options.echoStderr) process.stderr.write(s);
    stderrText += s;
    if (stderrText.length > STDERR_CAP) stderrText = stderrText.slice(-STDERR_CAP);
    for (const w of waiters) w();
  });

  const client = new Client(
    { name: options.clientName ?? 'fixture-test-client', version: '1.0.0' },
    { capabilities: options.capabilities ?? CLIENT_CAPABILITIES },
  );
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  let isClosed = false;
  const closed = new Promise<void>((resolve) => {
    client.onclose = () => {
      isClosed = true;
      resolve();
    };
  });

  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => {});
    // Give the pipe a moment to deliver the last stderr bytes of a dying child.
    await new Promise((r) => setTimeout(r, 50));
    if (err instanceof Error) Object.assign(err, { stderr: stderrText });
    throw err;
  }

  let closing: Promise<void> | undefined;
  const conn: StdioConnection = {
    client,
    transport,
    pid: transport.pid ?? -1,
    stderr: () => stderrText,
    waitForStderr(pattern, timeoutMs = 5000) {
      return new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(stderrText);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`stderr did not match ${pattern} within ${timeoutMs} ms; got:\n${stderrText.slice(-2000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    errors,
    closed,
    isClosed: () => isClosed,
    close() {
      closing ??= (async () => {
        open.delete(conn);
        await client.close().catch(() => {});
      })();
      return closing;
    },
  };
  open.add(conn);
  return conn;
}

/** connectDirect(node, [FIXTURES[name], ...args], extraEnv, options). */
export function connectFixture(
  name: FixtureName,
  args: string[] = [],
  extraEnv?: Record<string, string>,
  options?: DirectOptions,
): Promise<StdioConnection> {
  return connectDirect(NODE, [FIXTURES[name], ...args], extraEnv, options);
}

/** Close every connection opened by connectDirect that is still open (use in afterEach). */
export async function closeAllDirect(): Promise<void> {
  await Promise.all([...open].map((c) => c.close()));
}

/** Whether a process with this pid exists (signal 0). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Poll `predicate` every `intervalMs` until it returns truthy; rejects after `timeoutMs`. */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  timeoutMs = 5000,
  intervalMs = 20,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface EverythingHttp {
  /** Streamable HTTP endpoint, e.g. http://127.0.0.1:40123/mcp */
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then SIGKILL after 2 s; resolves when the process has exited. */
  close(): Promise<void>;
}

/**
 * Start server-everything's Streamable HTTP transport (`PORT=<port> node EVERYTHING_ENTRY
 * streamableHttp`) and wait for its "listening on port" line. It listens on all interfaces.
 */
export async function startEverythingHttp(port?: number, timeoutMs = 15000): Promise<EverythingHttp> {
  const p = port ?? (await freePort());
  const child = spawn(NODE, [EVERYTHING_ENTRY, 'streamableHttp'], {
    env: env({ PORT: String(p) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(t);
    }
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`server-everything did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (/listening on port/i.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with code ${code}:\n${out}`));
    });
  });
  return { url: `http://127.0.0.1:${p}/mcp`, port: p, pid: child.pid ?? -1, child, output: () => out, close };
}

/** A server process once its stderr says it is ready: what `ready` matched, the process, and its stderr so far. */
export interface ListeningProcess {
  match: RegExpExecArray;
  child: ChildProcess;
  stderr: () => string;
}

/**
 * Starts `command args` and resolves once its stderr matches `ready` (a fixture's "listening on ..." line); a process
 * that exits first rejects with what it printed.
 */
export async function startListening(
  command: string,
  args: string[],
  ready: RegExp,
  env?: NodeJS.ProcessEnv,
): Promise<ListeningProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(env ? { env } : {}) });
  let seen = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      seen += chunk;
      const found = ready.exec(seen);
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`${path.basename(args[0] ?? command)} exited (${code}): ${seen}`)));
  });
  return { match, child, stderr: () => seen };
}
