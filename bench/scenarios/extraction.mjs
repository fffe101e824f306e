// Scenario group "extraction": the throughput of mcp-offload's result pipeline alone, in-process
// (bench/lib/extraction-worker.mjs): a base64 image block, the same payload in a JSON text field,
// huge-json's base64 PDF in a JSON text field, and a result with nothing to extract. The relay-core issue's (#32)
// goal: the throughput not below the last full run before the rewrite (PREVIOUS), as a ratio per case and size.
//
// Environment: BENCH_EXTRACTION_MB=10,50 (decoded sizes in MiB), BENCH_EXTRACTION_RUNS=5 (runs per worker),
//              BENCH_EXTRACTION_CALLS=10000 (calls per run with nothing to extract),
//              BENCH_EXTRACTION_PROFILE=0 (skip the CPU-profiled run),
//              BENCH_EXTRACTION_BASELINE=<checkout with a built dist/> (also run every payload case with that
//              build, right after this one's, and judge the #32 goal by it: the same machine and Node, where PREVIOUS
//              was measured on others; e.g. `git worktree add /tmp/base 6dbfc8b`, node_modules linked from this
//              checkout, `npm run build` there).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { intFromEnv } from '../lib/echo-calls.mjs';
import { summarize } from '../lib/stats.mjs';
import * as fmt from '../lib/format.mjs';
import { RELAY_CORE, goalNotes } from '../lib/goals.mjs';

const MiB = 1024 * 1024;
const GOAL_MBPS = 300;
/**
 * MB/s per case and decoded MiB in the last full run before the relay core (bench/results.md at 6dbfc8b, 2026-11-27,
 * Node 20 on a 2-core AMD EPYC): the relay-core issue's goal is a throughput not below these. The pipeline is
 * the same code on both sides of the rewrite; a ratio far from 1 on another machine or Node says more about them.
 */
const PREVIOUS = {
  commit: '6dbfc8b',
  mbps: {
    image: { 10: 746, 50: 736 },
    json: { 10: 419, 50: 387 },
    'json-pdf': { 10: 428, 50: 380 },
  },
};
const CASES = [
  { id: 'image', label: 'image block (base64 PNG)' },
  { id: 'json', label: 'JSON text field (same base64 PNG)' },
  { id: 'json-pdf', label: 'JSON text field (base64 PDF, as huge-json)' },
];

function sizesFromEnv(env) {
  if (!env.BENCH_EXTRACTION_MB) return [10, 50];
  const sizes = env.BENCH_EXTRACTION_MB.split(',').map(Number);
  if (sizes.some((n) => !(n > 0)))
    throw new Error(`BENCH_EXTRACTION_MB must be positive numbers, got "${env.BENCH_EXTRACTION_MB}"`);
  return sizes;
}

const payloadRows = (rows) => rows.filter((r) => r.case !== 'none');

/** "json 10.0 MiB: 402 MB/s ÷ 419 MB/s = ×0.96" for each row that has `key` (a ratio) beside `ofKey` (the old MB/s). */
const ratios = (rows, key, ofKey) =>
  rows
    .map((r) => `${r.case} ${fmt.bytes(r.bytes)}: ${fmt.mbps(r.mbps)} ÷ ${fmt.mbps(r[ofKey])} = ${fmt.ratio(r[key])}`)
    .join(', ');

function summary(rows) {
  const rs = payloadRows(rows);
  const vsPrevious = rs.filter((r) => Number.isFinite(r.vsPrevious));
  // With a baseline build run beside this one, it judges: the recorded figures come from another machine and Node.
  const vsBaseline = rs.filter((r) => Number.isFinite(r.vsBaseline));
  const judged = vsBaseline.length ? vsBaseline : vsPrevious;
  const key = vsBaseline.length ? 'vsBaseline' : 'vsPrevious';
  const parts = [
    vsBaseline.length && `against the baseline build, same run: ${ratios(vsBaseline, 'vsBaseline', 'baselineMbps')}`,
    vsPrevious.length &&
      `${vsBaseline.length ? `against ${PREVIOUS.commit}'s figures (another machine, not judged): ` : ''}` +
        ratios(vsPrevious, 'vsPrevious', 'previousMbps'),
  ].filter(Boolean);
  return [
    {
      issue: RELAY_CORE,
      goal: `Huge results: extraction throughput not below the last run before the relay core (${PREVIOUS.commit}'s figures, or a baseline build run beside it), new ÷ old per case`,
      measured: parts.length
        ? parts.join('; ')
        : `not measured (no previous figure for the sizes run; ${PREVIOUS.commit} measured 10 and 50 MiB)`,
      met: judged.length ? judged.every((r) => r[key] >= 1) : undefined,
    },
    {
      goal: `Huge results: extraction throughput ≥ ${GOAL_MBPS} MB/s of base64 input (pipeline alone, in-process)`,
      measured: rs.map((r) => `${r.case} ${fmt.bytes(r.bytes)}: ${fmt.mbps(r.mbps)}`).join(', '),
      met: rs.length ? rs.every((r) => r.mbps >= GOAL_MBPS) : undefined,
    },
  ];
}

export default {
  name: 'extraction',
  title: 'Extraction throughput of the pipeline (in-process)',
  summaryOrder: 2.7,

  method: `The result pipeline alone, without MCP or pipes: a worker process (bench/lib/extraction-worker.mjs) imports
\`ResultPipeline\` (dist/pipeline/pipeline.js) with \`new RuleBook({ pipeline: {}, rules: [], servers: [] })\` (default settings, mode auto)
and an \`ArtifactStore\` (dist/artifacts/store.js, \`await store.init()\`) in a fresh temp dir for every run, logger \`silentLogger\`, and times
\`await pipeline.process(result, call)\` with \`performance.now()\`. The time covers everything the proxy does to a result: the layers, base64
validation and decoding, signature and facts (image size, PDF pages), sha256, writing the file and its metadata record, and building the
summary. Each run checks the answer (one artifact of the exact decoded size in \`_meta["mcp-offload/artifacts"]\`).

- **image block**: \`{ content: [{ type: "image", mimeType: "image/png", data }] }\`, data = base64 of the fixture server's big-image PNG
  of mb MiB (10 and 50, \`BENCH_EXTRACTION_MB\`).
- **JSON text field**: one text block \`JSON.stringify({ name: "report", format: "png", content: <the same base64> })\`: one scan of the text
  finds its long string values (src/pipeline/json-text.ts), only the rest is parsed, the binary-strings layer finds the payload by its signature,
  decodes it straight from a slice of the text and splices a reference in its place.
- **JSON text field (PDF)**: the same with huge-json's payload (\`%PDF-1.4\\n\` and filler, \`format: "pdf"\`).
- **nothing to extract**: a 5000-character text block and a small \`structuredContent\` (3 items): the pre-check cost every ordinary
  result pays; 10 000 calls per run (\`BENCH_EXTRACTION_CALLS\`), each checked to come back as the very same object.

One fresh worker per case and size runs it 5 times (\`BENCH_EXTRACTION_RUNS\`); **time** is the median (min–max) of the runs, so run 1
includes the JIT warming up. **throughput** = base64 characters of the payload ÷ median time, in MB/s with 1 MB = 2^20 bytes (goal: ≥ ${GOAL_MBPS} MB/s).
**vs ${PREVIOUS.commit}** = throughput ÷ the same case's and size's throughput in the last full run before the relay core
(${PREVIOUS.commit}: ${Object.entries(PREVIOUS.mbps)
    .map(([c, bySize]) => `${c} ${Object.values(bySize).join('/')} MB/s`)
    .join(
      ', ',
    )} at 10/50 MiB, on Node 20 and a 2-core AMD EPYC); the relay-core issue's goal (#32) is at least ×1.00 for every
case. **vs baseline** (only with \`BENCH_EXTRACTION_BASELINE=<checkout with a built dist/>\`) = throughput ÷ that build's, run by a
worker of its own right after this one's on the same case: the same machine and Node, so it judges the goal when present. **per call** (nothing to extract) = median run time ÷ calls. After the timed runs, one more run of each case at its largest size goes under the
V8 CPU profiler (\`node:inspector\` \`Profiler\`, 200 µs sampling, only around \`process()\`); the notes list its top functions by self time (main
thread only: file writes run on libuv's thread pool; \`(idle)\` is the main thread waiting for them).`,

  columns: [
    { key: 'label', label: 'case', align: 'left' },
    { key: 'bytes', label: 'payload (decoded)', format: (v) => (v ? fmt.bytes(v) : '—') },
    { key: 'chars', label: 'base64 input', format: (v) => (v ? fmt.bytes(v) : '—') },
    { key: 'timeMs', label: 'time (median)', format: fmt.latency },
    { key: 'range', label: 'min–max', format: (v) => fmt.range(v, fmt.latency) },
    { key: 'mbps', label: 'throughput', format: fmt.mbps },
    { key: 'vsPrevious', label: `vs ${PREVIOUS.commit}`, format: fmt.ratio },
    { key: 'vsBaseline', label: 'vs baseline (same run)', format: fmt.ratio },
    { key: 'perCallUs', label: 'per call', format: (v) => (Number.isFinite(v) ? `${v.toFixed(1)} µs` : '—') },
  ],

  async run(ctx) {
    const sizes = sizesFromEnv(ctx.env);
    const runs = intFromEnv(ctx.env, 'BENCH_EXTRACTION_RUNS', 5);
    const calls = intFromEnv(ctx.env, 'BENCH_EXTRACTION_CALLS', 10_000);
    const profile = ctx.env.BENCH_EXTRACTION_PROFILE !== '0';
    const baseline = ctx.env.BENCH_EXTRACTION_BASELINE ? resolve(ctx.env.BENCH_EXTRACTION_BASELINE) : undefined;
    if (baseline && !existsSync(join(baseline, 'dist/pipeline/pipeline.js')))
      throw new Error(`BENCH_EXTRACTION_BASELINE: no built dist/ in ${baseline} (run npm run build there)`);
    const largest = Math.max(...sizes);
    const rows = [];
    const jobs = [
      ...CASES.flatMap((c) => sizes.map((mb) => ({ ...c, mb }))),
      { id: 'none', label: 'nothing to extract (5000-char text + small structuredContent)' },
    ];
    for (const job of jobs) {
      const tmp = ctx.makeTempDir('mcp-offload-bench-extraction-');
      try {
        const label = `extraction ${job.id}${job.mb ? ` ${job.mb} MB` : ''}`;
        const worker = (root, extra) =>
          ctx.runWorker(
            { label, root, tmp, case: job.id, mb: job.mb, runs, calls, ...extra },
            { script: 'extraction-worker.mjs', timeoutMs: 10 * 60_000 },
          );
        const out = await worker(ctx.root, { profile: profile && (job.id === 'none' || job.mb === largest) });
        // The baseline build right after, on the same machine in the same minute (no profile: only its times count).
        const base =
          baseline && job.id !== 'none' ? await worker(baseline, { label: `${label} (baseline)` }) : undefined;
        const s = summarize(out.ms);
        const row = {
          case: job.id,
          label: job.label,
          bytes: out.bytes,
          chars: out.base64Chars,
          timeMs: s.median,
          range: s,
          runsMs: out.ms,
          top: out.top,
        };
        if (job.id === 'none') row.perCallUs = (s.median * 1000) / calls;
        else {
          row.mbps = out.base64Chars / MiB / (s.median / 1000);
          row.previousMbps = PREVIOUS.mbps[job.id]?.[job.mb];
          row.vsPrevious = row.mbps / row.previousMbps;
          if (base) {
            row.baselineMbps = base.base64Chars / MiB / (summarize(base.ms).median / 1000);
            row.vsBaseline = row.mbps / row.baselineMbps;
          }
        }
        rows.push(row);
        ctx.log(`${label}: ${out.ms.map((m) => fmt.latency(m)).join(', ')}`);
      } finally {
        ctx.removeTempDir(tmp);
      }
    }
    return rows;
  },

  notes(rows) {
    const lines = goalNotes(summary(rows));
    lines.push('', 'Every run (in run order):', '');
    for (const r of rows)
      lines.push(`- ${r.label}${r.bytes ? ` ${fmt.bytes(r.bytes)}` : ''}: ${r.runsMs.map(fmt.latency).join(', ')}`);
    const profiled = rows.filter((r) => r.top);
    if (profiled.length) {
      lines.push(
        '',
        'Where the time goes (one CPU-profiled run, share of the samples taken during `process()`, top functions by self time, 2 % and more; ' +
          'native frames without a file: `update` is sha256 (`Hash.update`), `base64Write` decodes base64 into a Buffer, `writeBuffer` ' +
          'hands the file write to the thread pool, `(garbage collector)` and `(program)` are V8 itself):',
        '',
      );
      for (const r of profiled) {
        const top = r.top
          .filter((t) => t.share >= 0.02)
          .map((t) => `${t.name}${t.where ? ` (${t.where})` : ''} ${(100 * t.share).toFixed(0)} %`);
        lines.push(`- ${r.label}${r.bytes ? ` ${fmt.bytes(r.bytes)}` : ''}: ${top.join('; ')}`);
      }
    }
    return lines.join('\n');
  },

  summary,
};
