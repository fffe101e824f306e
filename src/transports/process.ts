import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../logger.js';
import { notFound } from '../config/commands.js';
import type { Frame } from '../wire/frame.js';
import { LineReader, preview } from '../wire/lines.js';
import type { Wire } from '../wire/wire.js';
import { writeChunks } from '../wire/write-stream.js';

export interface ProcessOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  log: Logger;
  maxMessageBytes?: number;
  /** How long close() waits after ending stdin before it signals the process (default 2000). */
  killGraceMs?: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the process wrote to stderr, for error messages. */
  stderrTail: string[];
}

const STDERR_TAIL_LINES = 20;
const DEFAULT_KILL_GRACE_MS = 2000;

/** Process groups still running; killed if the proxy exits without a clean shutdown. */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) {
    try {
      process.kill(process.platform === 'win32' ? pid : -pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** The process could not be started at all; `code` is the system's (ENOENT: no such command). */
export class SpawnError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'SpawnError';
  }

  /** Starting it again cannot work until someone changes the machine or the config. */
  get permanent(): boolean {
    return this.code === 'ENOENT' || this.code === 'EACCES' || this.code === 'ENOTDIR';
  }
}

/**
 * A stdio MCP server as a wire: spawns the process and speaks newline-delimited JSON-RPC on its stdin and stdout.
 * Lines that are not JSON-RPC are logged and skipped; stderr goes to the log. Long literals on stdout are kept out
 * of the frames' text (literal-cutter.ts). The process runs in its own process group, so `npx`-style launchers and
 * their children end together.
 */
export class ProcessWire implements Wire {
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private child?: ChildProcess;
  private exitInfo?: ProcessExit;
  private readonly stderrTail: string[] = [];
  private exited?: Promise<void>;

  constructor(private readonly options: ProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get exit(): ProcessExit | undefined {
    return this.exitInfo;
  }

  /** Spawns the process; rejects with a SpawnError when it cannot be started. */
  start(): Promise<void> {
    const { command, args, env, cwd, log } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env,
        cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      const reader = new LineReader(
        {
          frame: (frame) => this.onframe?.(frame),
          noise: (line, reason) => log.warn({ line: preview(line) }, `ignored a line on stdout (${reason})`),
          oversize: (bytes) => this.onerror?.(new Error(`discarded a ${bytes}-byte message over the size limit`)),
        },
        this.options.maxMessageBytes,
        true,
      );
      // The wire is the only reader of the process's stdout: its chunks are the reader's to free (LineReader.push).
      const stdout = child.stdout!;
      stdout.on('data', (chunk: Buffer) => reader.push(chunk, stdout.listenerCount('data') === 1));
      child.stderr!.setEncoding('utf8');
      let partial = '';
      child.stderr!.on('data', (text: string) => {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) this.logStderr(line);
      });
      child.stdin!.on('error', (error) => log.debug({ err: error }, 'upstream stdin error'));
      this.exited = new Promise((done) => {
        child.once('close', (code, signal) => {
          if (partial) this.logStderr(partial);
          const dropped = reader.reset();
          if (dropped > 0) log.warn({ bytes: dropped }, 'upstream exited in the middle of a message');
          this.exitInfo = { code, signal, stderrTail: [...this.stderrTail] };
          if (child.pid !== undefined) liveGroups.delete(child.pid);
          done();
          this.onclose?.();
        });
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        const message =
          error.code === 'ENOENT'
            ? notFound(command, env?.PATH ?? process.env.PATH ?? '', cwd ?? process.cwd())
            : `could not start ${command}: ${error.message}`;
        if (!this.exitInfo) reject(new SpawnError(message, error.code));
        else this.onerror?.(new Error(message));
      });
    });
  }

  send(frame: Frame): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exitInfo) return Promise.reject(new Error('the process is not running'));
    return writeChunks(stdin, frame.pieces(true), '\n');
  }

  /**
   * Ends stdin, then after `grace` sends SIGTERM, and SIGKILL after as long again, to the process group; resolves
   * once the process has exited.
   */
  async close(grace = this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS): Promise<void> {
    const child = this.child;
    if (!child || !this.exited || this.exitInfo) return;
    child.stdin?.end();
    const timers = [
      setTimeout(() => this.signal('SIGTERM'), grace),
      setTimeout(() => this.signal('SIGKILL'), grace * 2),
    ];
    await this.exited;
    timers.forEach(clearTimeout);
    // The group may still hold grandchildren the server forgot to stop.
    this.signal('SIGKILL');
  }

  /** Ends the process at once, e.g. on a hung upstream. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.signal(signal);
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform !== 'win32') process.kill(-pid, signal);
      else this.child!.kill(signal);
    } catch {
      // Already gone.
    }
  }

  private logStderr(line: string): void {
    if (!line.trim()) return;
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    this.options.log.info({ stream: 'stderr' }, preview(line, 2000));
  }
}
