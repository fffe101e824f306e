#!/usr/bin/env node
// Interleaved A/B of the proxy's own work per small call, counted in instructions rather than timed: each front runs
// under valgrind's callgrind, the SDK v2 client makes the warm-up calls with counting off, then the counted calls, and
// the instructions its threads retired over those calls are divided by their number. A count does not move with the
// machine's load the way a latency does (this 2-core VM moves a median by more than the small-call goals' margins
// from run to run, docs/performance.md), so a change of a few percent of the path's work shows in one round; what it
// cannot show is time spent waiting (I/O, the scheduler) and how a cache or a branch predictor takes the code.
//
//   node bench/ab-instructions.mjs --a <checkout with a built dist/> [--path stdio|bridged|url] [--rounds 3]
//                                  [--calls 1000] [--warmup 100]
//
// --path stdio: the client in its 2025 mode before server-everything over stdio, through A, B and the byte relay
// (bench/lib/stdio-relay.mjs, the floor); bridged: the client pinned to 2026-07-28 through A and B (bridged to the
// same server), the byte relay with the client in its 2025 mode; url: the client pinned to 2026-07-28 before the SDK
// v2 fixture server's Streamable HTTP (test/fixtures/modern-server.mjs), through `mcp-offload --http --url` of A and B
// and the minimal HTTP proxy (bench/lib/http-front.mjs --front http-relay). The counted window is a fresh process's
// calls warmup+1 to warmup+calls: V8 compiles the hot path in it, on threads of its own ("V8 threads" below; the
// main thread's count is the one on the message's way). Needs valgrind (Debian's package); about 20 s a run.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ROOT, abArgs } from './lib/ab-args.mjs';
import { EVERYTHING } from './lib/echo-calls.mjs';
import { median } from './lib/stats.mjs';

const values = abArgs(
  {
    path: { type: 'string', default: 'stdio' },
    calls: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '100' },
  },
  '3',
);
if (!values.a || !['stdio', 'bridged', 'url'].includes(values.path)) {
  process.stderr.write(
    'usage: node bench/ab-instructions.mjs --a <checkout> [--path stdio|bridged|url] [--rounds 3]\n',
  );
  process.exit(2);
}
const A = resolve(values.a);
const NODE = process.execPath;
const calls = Number(values.calls);
const warmup = Number(values.warmup);
const work = mkdtempSync(join(tmpdir(), 'mcp-offload-instructions-'));
const valgrind = (args) => [
  'valgrind',
  '--tool=callgrind',
  `--callgrind-out-file=${join(work, 'out.%p')}`,
  '--smc-check=all-non-file',
  '--separate-threads=yes',
  '--instr-atstart=no',
  NODE,
  ...args,
];
const offload = (root) => [
  join(root, 'dist/cli.js'),
  '--log-level',
  'warn',
  '--artifact-dir',
  mkdtempSync(join(work, 'a-')),
];
const server = [NODE, join(ROOT, EVERYTHING), 'stdio'];
const legacy = 'legacy';
const pinned = { pin: '2026-07-28' };

/** The modes of each path: how the front starts, and the client's era before it. */
const PATHS = {
  stdio: {
    relay: { era: legacy, stdio: ['bench/lib/stdio-relay.mjs', '--', ...server] },
    a: { era: legacy, stdio: [...offload(A), '--', ...server] },
    b: { era: legacy, stdio: [...offload(ROOT), '--', ...server] },
  },
  bridged: {
    relay: { era: legacy, stdio: ['bench/lib/stdio-relay.mjs', '--', ...server] },
    a: { era: pinned, stdio: [...offload(A), '--', ...server] },
    b: { era: pinned, stdio: [...offload(ROOT), '--', ...server] },
  },
  url: {
    'http-relay': { era: pinned, front: ['bench/lib/http-front.mjs', '--front', 'http-relay', '--server', 'modern'] },
    a: { era: pinned, http: A },
    b: { era: pinned, http: ROOT },
  },
};

/** How long a front may take to say it is ready (valgrind starts a Node process in some seconds). */
const READY_MS = 180_000;

/** Starts `command` and resolves with the first match of `pattern` in its stderr. */
function started(command, pattern) {
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((done, fail) => {
    let seen = '';
    const late = setTimeout(() => {
      child.kill();
      fail(new Error(`${command.join(' ')} did not print ${pattern} within ${READY_MS} ms: ${seen}`));
    }, READY_MS);
    const look = (chunk) => {
      seen = (seen + chunk).slice(-4000);
      const match = pattern.exec(seen);
      if (!match) return;
      clearTimeout(late);
      // Matched once: the rest of its stderr is read (a full pipe would stop it) and kept for the exit's error.
      child.stderr.off('data', look).on('data', (more) => (seen = (seen + more).slice(-4000)));
      done({ child, match });
    };
    child.stderr.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(late);
      fail(new Error(`${command.join(' ')} exited (${code}): ${seen}`));
    });
  });
}

/** The fixture server's Streamable HTTP, started once for the url path; `stop` ends it (else it keeps this one up). */
async function fixture() {
  const { child, match } = await started([NODE, 'test/fixtures/modern-server.mjs', '--http', '0'], /listening (\d+)/);
  return { url: `http://127.0.0.1:${match[1]}/mcp`, stop: () => child.kill() };
}

/** One counted run: instructions a call on the front's main thread and on its other threads. */
async function run(mode, url) {
  const client = new Client(
    { name: 'ab-instructions', version: '1' },
    { capabilities: {}, versionNegotiation: { mode: mode.era } },
  );
  let pid;
  let stop = () => {};
  if (mode.stdio) {
    const command = valgrind(mode.stdio);
    const transport = new StdioClientTransport({
      command: command[0],
      args: command.slice(1),
      cwd: ROOT,
      stderr: 'ignore',
    });
    await client.connect(transport);
    pid = transport.pid;
  } else {
    const front = mode.front
      ? await started(valgrind(mode.front), /front ready (\S+) pid (\d+)/)
      : await started(valgrind([...offload(mode.http), '--http', '127.0.0.1:0', '--url', url]), /listening on (\S+)/);
    pid = front.child.pid;
    stop = () => front.child.kill('SIGINT');
    await client.connect(new StreamableHTTPClientTransport(new URL(front.match[1])));
  }
  const text = url ? 'text' : 'message';
  const call = (i) => client.callTool({ name: 'echo', arguments: { [text]: `hello ${i}` } });
  for (let i = 0; i < warmup; i++) await call(i);
  execFileSync('callgrind_control', ['-i', 'on', String(pid)], { stdio: 'ignore' });
  for (let i = 0; i < calls; i++) await call(i);
  execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
  await client.close();
  stop();
  const counts = { main: 0, other: 0 };
  for (const file of readdirSync(work).filter((f) => f.startsWith(`out.${pid}.1-`))) {
    const dump = readFileSync(join(work, file), 'utf8');
    const total = Number(/^summary: (\d+)/m.exec(dump)?.[1] ?? 0);
    counts[/^thread: 1$/m.test(dump) ? 'main' : 'other'] += total;
  }
  for (const file of readdirSync(work).filter((f) => f.startsWith(`out.${pid}`))) rmSync(join(work, file));
  if (counts.main === 0) throw new Error(`no instructions counted for pid ${pid}: is valgrind installed?`);
  return { main: counts.main / calls, other: counts.other / calls };
}

const modes = PATHS[values.path];
const fixtureServer = values.path === 'url' ? await fixture() : undefined;
const url = fixtureServer?.url;
const results = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const [name, mode] of Object.entries(modes)) {
      const counted = await run(mode, url);
      results[name].push(counted);
      process.stderr.write(`round ${round} ${name}: main ${k(counted.main)}, V8 threads ${k(counted.other)}\n`);
    }
  }
} finally {
  fixtureServer?.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `instructions a call, ${values.path}, calls ${warmup + 1}-${warmup + calls} of a fresh process (median of ${values.rounds}):`,
);
for (const [name, runs] of Object.entries(results)) {
  const main = runs.map((r) => r.main);
  console.log(
    `  ${name.padEnd(10)} main ${k(median(main))} (${main.map(k).join(', ')}), V8 threads ${k(median(runs.map((r) => r.other)))}`,
  );
}
const [a, b] = [median(results.a.map((r) => r.main)), median(results.b.map((r) => r.main))];
console.log(`  B against A on the main thread: ${(((b - a) / a) * 100).toFixed(1)} %`);

function k(n) {
  return `${(n / 1000).toFixed(1)}k`;
}
