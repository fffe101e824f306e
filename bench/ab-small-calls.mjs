#!/usr/bin/env node
// Interleaved A/B of the small-call latency: the same echo calls as the small-calls group, through mcp-offload
// builds of two checkouts (A: a baseline, B: this one), next to a direct server and the bare byte relay, run
// after run in alternation, so a machine shared with other work slows every mode alike.
//
//   node bench/ab-small-calls.mjs --a <checkout with a built dist/> [--rounds 5] [--calls 2000] [--warmup 100] [--http]
//
// --warmup: calls made before each process is timed (default 100, as the small-calls group); a few thousand measure
// the steady state of a process that has compiled its hot code, which a proxy living as long as its client reaches.
//
// --modern: the SDK v2 client pinned to 2026-07-28 before test/fixtures/modern-server.mjs: over stdio, or with --url
// the fronts before that server's own Streamable HTTP.
// stdio modes: direct, relay (bench/lib/stdio-relay.mjs), json-relay, a, b. With --http: direct-http
// (server-everything streamableHttp), a-http, b-http (mcp-offload --http over the stdio server) instead. With --url:
// direct-http, relay-url (a TCP byte relay in front of it), http-relay (a minimal HTTP proxy in front of it), a-url,
// b-url (mcp-offload --http --url in front of it; bench/lib/http-front.mjs); the CPU figures are then of the front's
// process. Prints, per phase and mode: the pooled median, p90, each run's median (the spread), the added median over
// direct, the added median as a multiple of the relay's (stdio and --url), and the proxy process's CPU time per call
// (median of the runs). AB_MODES=<mode,mode,...> runs only those modes (e.g. --url without http-relay; over stdio,
// busy-relay: the byte relay busy for BUSY_US µs, default 10, per chunk each way, to see what that much work per
// message costs on this machine).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT, abArgs } from './lib/ab-args.mjs';
import { EVERYTHING, echoJob, httpFrontJob } from './lib/echo-calls.mjs';
import { median } from './lib/stats.mjs';

const values = abArgs({
  calls: { type: 'string', default: '2000' },
  warmup: { type: 'string' },
  http: { type: 'boolean', default: false },
  url: { type: 'boolean', default: false },
  modern: { type: 'boolean', default: false },
});
if (!values.a) {
  process.stderr.write(
    'usage: node bench/ab-small-calls.mjs --a <baseline checkout> [--rounds 5] [--calls 2000] [--warmup 100] [--http]\n',
  );
  process.exit(2);
}
const A = resolve(values.a);
const NODE = process.execPath;
const offload = (root, tmp) => [join(root, 'dist/cli.js'), '--log-level', 'warn', '--artifact-dir', tmp];
const httpReady = { stream: 'stderr', pattern: '^mcp-offload listening on (\\S+)' };
/** With --url --modern, the fronts stand before the SDK v2 fixture server (the small-calls group's v2m-url modes). */
const URL_SERVER = values.url && values.modern ? 'modern' : undefined;
/** server-everything (or the fixture server) over HTTP behind `front` (bench/lib/http-front.mjs). */
const httpFront = (front, root = ROOT) => httpFrontJob(front, root, URL_SERVER);
const MODES = {
  direct: () => ({ transport: 'stdio', spawn: { command: NODE, args: [EVERYTHING, 'stdio'] } }),
  relay: () => ({
    transport: 'stdio',
    spawn: { command: NODE, args: ['bench/lib/stdio-relay.mjs', '--', NODE, EVERYTHING, 'stdio'] },
  }),
  // The byte relay with BUSY_US µs (default 10) of busy work per chunk, each way: a calibration of the machine.
  'busy-relay': () => ({
    transport: 'stdio',
    spawn: {
      command: NODE,
      args: ['bench/lib/stdio-relay.mjs', '--busy-us', process.env.BUSY_US ?? '10', '--', NODE, EVERYTHING, 'stdio'],
    },
  }),
  'json-relay': () => ({
    transport: 'stdio',
    spawn: {
      command: NODE,
      args: ['bench/lib/stdio-json-relay.mjs', '--stringify', '--', NODE, EVERYTHING, 'stdio'],
    },
  }),
  a: (tmp) => ({
    transport: 'stdio',
    spawn: { command: NODE, args: [...offload(A, tmp), '--', NODE, EVERYTHING, 'stdio'] },
  }),
  b: (tmp) => ({
    transport: 'stdio',
    spawn: { command: NODE, args: [...offload(ROOT, tmp), '--', NODE, EVERYTHING, 'stdio'] },
  }),
  'direct-http': () =>
    URL_SERVER
      ? httpFront('direct')
      : {
          transport: 'http',
          spawn: { command: NODE, args: [EVERYTHING, 'streamableHttp'], env: { PORT: '{port}' } },
          ready: { stream: 'stderr', pattern: 'Streamable HTTP Server listening on port' },
          url: 'http://127.0.0.1:{port}/mcp',
        },
  'a-http': (tmp) => ({
    transport: 'http',
    spawn: { command: NODE, args: [...offload(A, tmp), '--http', '127.0.0.1:0', '--', NODE, EVERYTHING, 'stdio'] },
    ready: httpReady,
  }),
  'relay-url': () => httpFront('relay'),
  'http-relay': () => httpFront('http-relay'),
  'a-url': () => httpFront('offload', A),
  'b-url': () => httpFront('offload', ROOT),
  'b-http': (tmp) => ({
    transport: 'http',
    spawn: { command: NODE, args: [...offload(ROOT, tmp), '--http', '127.0.0.1:0', '--', NODE, EVERYTHING, 'stdio'] },
    ready: httpReady,
  }),
};
const modes = values.url
  ? (process.env.AB_MODES?.split(',') ?? ['direct-http', 'relay-url', 'http-relay', 'a-url', 'b-url'])
  : values.http
    ? ['direct-http', 'a-http', 'b-http']
    : (process.env.AB_MODES?.split(',') ?? ['direct', 'relay', 'json-relay', 'a', 'b']);
// --modern: the SDK v2 client pinned to 2026-07-28 before the SDK v2 fixture server, as the small-calls group's
// v2m-stdio modes.
const MODERN_SERVER = 'test/fixtures/modern-server.mjs';
// With --url, MODES made the fronts before the fixture server already (URL_SERVER).
const modern = (job) => ({
  ...job,
  client: 'v2-modern',
  ...(values.url ? {} : { spawn: { ...job.spawn, args: [...job.spawn.args.slice(0, -2), MODERN_SERVER] } }),
  call: { name: 'echo', arguments: { text: 'hello' } },
  expect: 'echo: {arg}',
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const phases = { sequential: 'seq', concurrent: 'conc' };
const data = Object.fromEntries(
  modes.map((m) => [m, Object.fromEntries(Object.keys(phases).map((p) => [p, { ms: [], runs: [], cpu: [] }]))]),
);

for (let round = 1; round <= rounds; round++) {
  for (const mode of modes) {
    const tmp = mkdtempSync(join(tmpdir(), 'mcp-offload-ab-'));
    try {
      const plain = {
        label: mode,
        ...MODES[mode](tmp),
        ...echoJob({ sequential: calls, concurrent: calls, concurrency: 16 }),
        ...(values.warmup ? { warmup: Number(values.warmup) } : {}),
      };
      const job = values.modern ? modern(plain) : plain;
      const run = spawnSync(NODE, [join(ROOT, 'bench/lib/latency-worker.mjs'), JSON.stringify(job)], {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      const out = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}');
      if (!out.ok) throw new Error(`${mode}: ${out.error ?? run.stderr}`);
      for (const phase of Object.keys(phases)) {
        const { ms, childCpuMs } = out.phases[phase];
        data[mode][phase].ms.push(...ms);
        data[mode][phase].runs.push(median(ms));
        data[mode][phase].cpu.push(childCpuMs / ms.length);
      }
      process.stderr.write(
        `round ${round}/${rounds} ${mode}: ${Object.keys(phases)
          .map((p) => `${p} ${median(data[mode][p].runs.slice(-1)).toFixed(3)} ms`)
          .join(', ')}\n`,
      );
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
}

const f = (x) => x.toFixed(3);
const p90 = (values) => [...values].sort((x, y) => x - y)[Math.ceil(0.9 * values.length) - 1];
for (const phase of Object.keys(phases)) {
  const direct = median(data[modes[0]][phase].ms);
  const relayMode = data.relay ?? data['relay-url'];
  const relay = relayMode ? median(relayMode[phase].ms) - direct : undefined;
  process.stdout.write(
    `\n${phase}: mode, median, p90, run medians, added, added / relay's added, CPU per call (runs)\n`,
  );
  for (const mode of modes) {
    const d = data[mode][phase];
    const added = median(d.ms) - direct;
    process.stdout.write(
      `  ${mode.padEnd(11)} ${f(median(d.ms))} ms  p90 ${f(p90(d.ms))} ms  [${d.runs.map(f).join(', ')}]  ` +
        `${added >= 0 ? '+' : ''}${f(added)} ms  ${relay > 0 ? `${(added / relay).toFixed(2)}x` : ''}  ` +
        `CPU ${f(median(d.cpu))} ms [${d.cpu.map(f).join(', ')}]\n`,
    );
  }
}
