#!/usr/bin/env node
// Latency of many small calls in a fresh process: start a server (or proxy), connect an SDK client
// over stdio or Streamable HTTP, make warm-up, sequential and concurrent calls of one tool, timing
// every call, and print ONE JSON line on stdout.
//
//   node bench/lib/latency-worker.mjs '<job JSON>'
//
// job:
//   label        for messages
//   spawn        { command, args, env? }: the process to start; "{port}" in args and env values is
//                replaced by a free TCP port on 127.0.0.1 (HTTP targets)
//   transport    "stdio": the SDK's StdioClientTransport spawns it and talks over its stdin/stdout
//                "http":  the worker spawns it and connects the SDK's StreamableHTTPClientTransport
//   ready        (http) { stream: "stdout"|"stderr", pattern, ping? }: the process is ready once a line
//                of `stream` matches the regular expression `pattern` (its first group, if any, is the
//                URL) and, with `ping` (a path), once GET <origin><ping> answers 200
//   url          (http) the endpoint when `pattern` has no group, e.g. "http://127.0.0.1:{port}/mcp"
//   call         { name, arguments }: string arguments get " <i>" appended (a different message each call)
//   expect       the text the first content block must hold, with "{arg}" for the call's string argument
//   warmup, sequential, concurrent, concurrency: call counts (concurrent calls keep `concurrency` in flight)
//   client       "sdk1" (default): the SDK 1.32 Client, which speaks 2025-11-25; "v2-legacy": the SDK v2 Client in
//                its 2025 mode (initialize); "v2-modern": the SDK v2 Client pinned to 2026-07-28 (no initialize, an
//                envelope in every request)
//   together     [{ id, spawn, transport, ready, url, client }, ...]: several targets at once, their sequential calls
//                made in turns (`turn` timed calls each, default 20, after one untimed call that wakes the target):
//                a machine's drift over a run then slows every target alike, and only one is busy at a time. The call
//                counts and the call are the job's.
//
// output: with `together`, { ok, results: [one output per target, with its id] }; else one output:
//         { ok, connectMs, protocolVersion (the v2 client's),
//           phases: { sequential: { ms[], wallMs, childCpuMs }, concurrent: {...} },
//           memory: { client, child }, leftBehind }
//   ms       per call, performance.now() from callTool() to its resolved promise, in call order
//   wallMs   the whole phase, first call to last resolution (in turns: the sum of the target's timed calls)
//   childCpuMs CPU time (user + system) the spawned process used during the phase (not its own children; for an HTTP
//            front that names its pid on the ready line, that process)
//   leftBehind processes still running after close (an HTTP server the worker started is killed first, not counted)
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { killDescendants, killTree } from './cleanup.mjs';
import { now, procCpuMs, procMemory } from './measure.mjs';

const READY_TIMEOUT_MS = 60_000;
const CALL_TIMEOUT_MS = 60_000;
/** Timed calls a target makes in one turn when several take turns (`together`). */
const TURN = 20;
const stderrTail = [];
const keep = (line) => {
  if (!line.trim()) return;
  stderrTail.push(line);
  if (stderrTail.length > 30) stderrTail.shift();
  if (process.env.BENCH_VERBOSE) process.stderr.write(`[child] ${line}\n`);
};

/** Calls onLine for every line of a readable stream (which is thereby drained). */
function eachLine(stream, onLine) {
  let partial = '';
  stream.setEncoding('utf8').on('data', (s) => {
    const lines = (partial + s).split('\n');
    partial = lines.pop();
    lines.forEach(onLine);
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns the HTTP server and resolves with its endpoint URL once it is ready. */
async function startHttp(job) {
  const port = await freePort();
  const fill = (s) => String(s).replaceAll('{port}', String(port));
  const env = {
    ...process.env,
    ...Object.fromEntries(Object.entries(job.spawn.env ?? {}).map(([k, v]) => [k, fill(v)])),
  };
  const child = spawn(job.spawn.command, job.spawn.args.map(fill), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const pattern = new RegExp(job.ready.pattern);
  let url = job.url ? fill(job.url) : undefined;
  let frontPid;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no line matching /${job.ready.pattern}/ within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    child.once('exit', (code, signal) =>
      reject(new Error(`the server exited (${signal ?? code}) before it was ready`)),
    );
    for (const name of ['stdout', 'stderr']) {
      eachLine(child[name], (line) => {
        keep(line);
        const m = name === job.ready.stream && pattern.exec(line);
        if (!m) return;
        if (m[1]) url = m[1];
        // The process the front runs in, when it is not the one spawned (bench/lib/http-front.mjs).
        if (m[2]) frontPid = Number(m[2]);
        clearTimeout(timer);
        resolve();
      });
    }
  });
  if (job.ready.ping) {
    const ping = new URL(job.ready.ping, url).href;
    for (const t0 = now(); ;) {
      const ok = await fetch(ping).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (now() - t0 > READY_TIMEOUT_MS)
        throw new Error(`GET ${ping} did not answer 200 within ${READY_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return { child, url, frontPid };
}

/** The client a job asks for, its transports, and how it calls a tool (the two SDKs take the timeout differently). */
function clientFor(kind) {
  const info = { name: 'mcp-offload-bench', version: '0.0.0' };
  if (kind === 'sdk1') {
    const client = new Client(info, { capabilities: {} });
    return {
      client,
      Stdio: StdioClientTransport,
      Http: StreamableHTTPClientTransport,
      call: (params) => client.callTool(params, undefined, { timeout: CALL_TIMEOUT_MS }),
    };
  }
  if (kind !== 'v2-legacy' && kind !== 'v2-modern') throw new Error(`unknown client ${JSON.stringify(kind)}`);
  const mode = kind === 'v2-modern' ? { pin: '2026-07-28' } : 'legacy';
  const client = new ClientV2(info, { capabilities: {}, versionNegotiation: { mode } });
  return {
    client,
    Stdio: StdioClientTransportV2,
    Http: StreamableHTTPClientTransportV2,
    call: (params) => client.callTool(params, { timeout: CALL_TIMEOUT_MS }),
  };
}

/**
 * Starts (or spawns through the client's transport) what one job talks to and connects the client. Resolves with
 * what the phases need: the call and its check, the process whose CPU and memory are the job's, and how to stop it.
 */
async function open(job, out) {
  const { client, Stdio, Http, call } = clientFor(job.client ?? 'sdk1');
  const conn = { client, out, childPid: undefined, httpChild: undefined };
  let transport;
  if (job.transport === 'stdio') {
    transport = new Stdio({
      command: job.spawn.command,
      args: job.spawn.args,
      // A stdio job's own variables too (the tracing group's OTEL_*).
      env: { ...process.env, ...job.spawn.env },
      stderr: 'pipe',
    });
    eachLine(transport.stderr, keep);
  } else {
    const { child, url, frontPid } = await startHttp(job);
    conn.httpChild = child;
    conn.childPid = frontPid ?? child.pid;
    out.url = url;
    transport = new Http(new URL(url));
  }
  const t0 = now();
  await client.connect(transport);
  out.connectMs = now() - t0;
  out.protocolVersion = client.getNegotiatedProtocolVersion?.();
  conn.childPid ??= transport.pid;
  let seq = 0;
  conn.callOnce = async () => {
    const i = seq++;
    const args = Object.fromEntries(
      Object.entries(job.call.arguments ?? {}).map(([k, v]) => [k, typeof v === 'string' ? `${v} ${i}` : v]),
    );
    const start = now();
    const result = await call({ name: job.call.name, arguments: args });
    const ms = now() - start;
    const arg = Object.values(args).find((v) => typeof v === 'string');
    const want = job.expect?.replaceAll('{arg}', arg);
    if (want !== undefined && result.content?.[0]?.text !== want) {
      throw new Error(`call ${i}: expected ${JSON.stringify(want)}, got ${JSON.stringify(result).slice(0, 300)}`);
    }
    return ms;
  };
  return conn;
}

/** Stops what open() started; the HTTP server was started here and is stopped here. */
async function shut(conn) {
  await conn.client.close().catch(() => {});
  const child = conn.httpChild;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    killTree(child.pid);
    await exited; // reaped: a zombie would count as left behind
  }
}

/**
 * The phases over one or more connections. Several (`job.together`) take their sequential calls in turns of `turn`
 * calls (TURN by default; the first target of each round rotating), so that whatever slows the machine for a while
 * slows every mode alike, and only one of them is busy at any moment. A turn opens with one call that is made but not
 * timed: the target's processes idled through the others' turns, and a call that wakes them measures the wake-up
 * (alternated call by call, 300 calls, every HTTP mode's median was 4.5 to 6.1 ms on this VM; in turns of 20, 2.5
 * to 3.7), not the path. A mode's sequential wallMs is then the sum of its timed calls, and its CPU the phase's CPU
 * scaled to its timed calls. Concurrent calls keep `concurrency` in flight on one connection at a time, the
 * connections in order.
 */
async function phases(job, conns) {
  for (let i = 0; i < job.warmup; i++) for (const conn of conns) await conn.callOnce();
  const alone = conns.length === 1;
  const turn = alone ? job.sequential : (job.turn ?? TURN);
  const seq = conns.map((conn) => ({ ms: [], made: 0, cpu0: procCpuMs(conn.childPid) }));
  const p0 = now();
  for (let done = 0, round = 0; done < job.sequential; round++) {
    const size = Math.min(turn, job.sequential - done);
    for (let k = 0; k < conns.length; k++) {
      const at = (round + k) % conns.length;
      if (!alone) {
        await conns[at].callOnce();
        seq[at].made++;
      }
      for (let j = 0; j < size; j++) seq[at].ms.push(await conns[at].callOnce());
      seq[at].made += size;
    }
    done += size;
  }
  const wallMs = now() - p0;
  conns.forEach((conn, at) => {
    const { ms, made, cpu0 } = seq[at];
    const cpu = procCpuMs(conn.childPid) - cpu0;
    conn.out.phases.sequential = alone
      ? { ms, wallMs, childCpuMs: cpu }
      : { ms, wallMs: ms.reduce((a, b) => a + b, 0), childCpuMs: (cpu * ms.length) / made };
  });
  for (const conn of conns) {
    const concurrent = [];
    let next = 0;
    const cpu0 = procCpuMs(conn.childPid);
    const start = now();
    const lane = async () => {
      while (next < job.concurrent) {
        next++;
        concurrent.push(await conn.callOnce());
      }
    };
    await Promise.all(Array.from({ length: job.concurrency }, lane));
    conn.out.phases.concurrent = { ms: concurrent, wallMs: now() - start, childCpuMs: procCpuMs(conn.childPid) - cpu0 };
  }
  for (const conn of conns) {
    conn.out.memory.client = procMemory();
    if (conn.childPid) conn.out.memory.child = procMemory(conn.childPid);
  }
}

async function main() {
  const job = JSON.parse(process.argv[2] ?? 'null');
  // One job, or several (`together`: each with its own id and target, the call counts the job's) timed in turns.
  const targets = job.together ? job.together.map((one) => ({ ...job, ...one, together: undefined })) : [job];
  const outs = targets.map((one) => ({ ok: true, label: one.label ?? job.label, id: one.id, phases: {}, memory: {} }));
  const conns = [];
  let failure;
  try {
    for (const [at, one] of targets.entries()) conns.push(await open(one, outs[at]));
    await phases(job, conns);
  } catch (error) {
    failure = error?.message ?? String(error);
  } finally {
    for (const conn of conns) await shut(conn);
  }
  const leftBehind = killDescendants(process.pid);
  for (const out of outs) {
    out.leftBehind = leftBehind;
    if (failure === undefined) continue;
    out.ok = false;
    out.error = failure;
    out.stderrTail = [...stderrTail];
  }
  const result = job.together
    ? { ok: failure === undefined, results: outs, ...(failure ? { error: failure } : {}) }
    : outs[0];
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(result.ok ? 0 : 1));
}

main().catch((error) => {
  killDescendants(process.pid);
  process.stdout.write(`${JSON.stringify({ ok: false, error: error?.stack ?? String(error), stderrTail })}\n`, () =>
    process.exit(1),
  );
});
