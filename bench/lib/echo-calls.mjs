// Shared by the small-call groups (small-calls, rules-500): `echo` calls of server-everything,
// timed by bench/lib/latency-worker.mjs, runs alternating between modes, samples pooled per mode.
import { median } from './stats.mjs';

export const EVERYTHING = 'node_modules/@modelcontextprotocol/server-everything/dist/index.js';
export const WARMUP = 100;

/**
 * The latency-worker job fields of server-everything's own Streamable HTTP with `front` before it
 * (bench/lib/http-front.mjs: direct, relay, http-relay, offload; `root`: the checkout whose dist/cli.js offload runs;
 * `server: 'modern'`: the SDK v2 fixture server instead).
 */
export const httpFrontJob = (front, root, server) => ({
  transport: 'http',
  spawn: {
    command: process.execPath,
    args: [
      'bench/lib/http-front.mjs',
      '--front',
      front,
      ...(root ? ['--root', root] : []),
      ...(server ? ['--server', server] : []),
    ],
  },
  ready: { stream: 'stderr', pattern: '^front ready (\\S+)(?: pid (\\d+))?' },
});

/** A positive integer from the environment, or dflt. */
export function intFromEnv(env, name, dflt) {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

/** The job fields every echo measurement shares. */
export const echoJob = (counts) => ({
  call: { name: 'echo', arguments: { message: 'hello' } },
  expect: 'Echo: {arg}',
  warmup: WARMUP,
  ...counts,
});

/**
 * Runs ctx.runs rounds; in each, one fresh latency worker per mode (modes in order), or, for modes that name the
 * same `together` key, one worker for all of them, which makes their calls in turns (latency-worker.mjs): each mode's
 * target is still a fresh process of its own. makeJob(mode, tmp) gets a fresh temp dir (removed after the run).
 * Resolves with, per mode id:
 *   { sequential: ms[], concurrent: ms[] (every call of every run),
 *     throughput: { sequential: [], concurrent: [] } (calls/s per run), runMedians, cpuPerCall (ms of the spawned
 *     process's CPU per call, per run): { sequential: [], concurrent: [] },
 *     connectMs: [], childPeak: [] }
 */
export async function collect(ctx, group, modes, makeJob) {
  const out = Object.fromEntries(
    modes.map((m) => [
      m.id,
      {
        sequential: [],
        concurrent: [],
        throughput: { sequential: [], concurrent: [] },
        runMedians: { sequential: [], concurrent: [] },
        cpuPerCall: { sequential: [], concurrent: [] },
        connectMs: [],
        childPeak: [],
      },
    ]),
  );
  // Modes in order; those of one `together` key as one batch, where its first member stands.
  const batches = [];
  for (const mode of modes) {
    const batch = mode.together && batches.find((b) => b[0].together === mode.together);
    if (batch) batch.push(mode);
    else batches.push([mode]);
  }
  const keep = (mode, res) => {
    const o = out[mode.id];
    for (const [phase, p] of Object.entries(res.phases)) {
      if (!p.ms.length) continue;
      o[phase].push(...p.ms);
      o.throughput[phase].push((p.ms.length / p.wallMs) * 1000);
      o.runMedians[phase].push(median(p.ms));
      o.cpuPerCall[phase].push(p.childCpuMs / p.ms.length);
    }
    o.connectMs.push(res.connectMs);
    o.childPeak.push(res.memory.child?.peakRss);
  };
  for (let run = 1; run <= ctx.runs; run++) {
    for (const batch of batches) {
      const dirs = batch.map(() => ctx.makeTempDir('mcp-offload-bench-calls-'));
      try {
        const ids = batch.map((m) => m.id).join(' + ');
        const label = `${group} ${ids} run ${run}/${ctx.runs}`;
        const jobs = batch.map((mode, at) => ({ id: mode.id, ...makeJob(mode, dirs[at]) }));
        const job = batch.length === 1 ? { label, ...jobs[0] } : { label, ...jobs[0], together: jobs };
        const res = await ctx.runWorker(job, { script: 'latency-worker.mjs', timeoutMs: 10 * 60_000 * batch.length });
        const results = batch.length === 1 ? [res] : res.results;
        if (results[0].leftBehind)
          ctx.warn(`${label}: ${results[0].leftBehind} process(es) were still running after close and were killed`);
        batch.forEach((mode, at) => {
          const one = results[at];
          keep(mode, one);
          const seq = one.phases.sequential;
          ctx.log(
            `${group} ${mode.id} run ${run}/${ctx.runs}: sequential median ${median(seq.ms).toFixed(3)} ms` +
              (one.phases.concurrent?.ms.length
                ? `, concurrent median ${median(one.phases.concurrent.ms).toFixed(3)} ms`
                : ''),
          );
        });
      } finally {
        for (const tmp of dirs) ctx.removeTempDir(tmp);
      }
    }
  }
  return out;
}
