// Scenario group "tracing": what OpenTelemetry tracing costs a small call. `echo {message}` of server-everything
// through mcp-offload over stdio, with tracing off (no OTEL_* variable: the SDK is never loaded) and on, every call
// sampled (OTEL_TRACES_SAMPLER=always_on) and exported to a local OTLP/HTTP receiver (bench/lib/otlp-sink.mjs) in
// both encodings; direct calls as the reference.
//
// Environment: BENCH_TRACING_CALLS=2000 (calls per phase), BENCH_SMALL_CALLS_CONCURRENCY=16.
import { EVERYTHING, collect, echoJob, intFromEnv } from '../lib/echo-calls.mjs';
import { distribution, median } from '../lib/stats.mjs';
import * as fmt from '../lib/format.mjs';
import { startOtlpSink } from '../lib/otlp-sink.mjs';

const NODE = process.execPath;
const PHASES = ['sequential', 'concurrent'];
const offload = (tmp, env) => ({
  transport: 'stdio',
  spawn: {
    command: NODE,
    args: ['dist/cli.js', '--log-level', 'warn', '--artifact-dir', tmp, '--', NODE, EVERYTHING, 'stdio'],
    env,
  },
});
const traced = (endpoint, protocol) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_TRACES_SAMPLER: 'always_on',
});

export default {
  name: 'tracing',
  title: 'Tracing: what it costs a small call',
  summaryOrder: 9,

  method: `\`tools/call\` of \`echo {message}\` of server-everything through \`mcp-offload -- node <everything> stdio\` (SDK 1 client over stdio),
as in the small-calls group: **direct** (the reference), **tracing off** (no OTEL_* variable: the OpenTelemetry SDK is not loaded, the
tracing interceptor is in no chain), and **tracing on** with \`OTEL_EXPORTER_OTLP_ENDPOINT\` pointing at a local OTLP/HTTP receiver
(bench/lib/otlp-sink.mjs, in the bench process: it answers every export at once), \`OTEL_TRACES_SAMPLER=always_on\` (every call sampled:
a server span, the upstream call's client span and the pipeline's), in \`http/protobuf\` and \`http/json\`, with the SDK's batch span
processor at its defaults. N sequential calls, then N with 16 in flight, after the warm-up; N = 2000 (\`BENCH_TRACING_CALLS\`). Each
run is a fresh process; runs of the modes alternate. **added by tracing**: the median (p99) minus tracing off's, same phase.`,

  columns: [
    { key: 'mode', label: 'mode', align: 'left' },
    { key: 'phase', label: 'phase', align: 'left' },
    { key: 'median', label: 'median', format: fmt.latency },
    { key: 'p99', label: 'p99', format: fmt.latency },
    { key: 'throughput', label: 'throughput', format: fmt.rate },
    { key: 'addedMedian', label: 'added by tracing (median)', format: fmt.signedLatency },
    { key: 'addedP99', label: 'added by tracing (p99)', format: fmt.signedLatency },
    { key: 'cpuPerCall', label: 'proxy CPU per call', format: fmt.latency },
    { key: 'childPeak', label: 'proxy RSS', format: fmt.bytes },
  ],

  async run(ctx) {
    const n = intFromEnv(ctx.env, 'BENCH_TRACING_CALLS', 2000);
    const concurrency = intFromEnv(ctx.env, 'BENCH_SMALL_CALLS_CONCURRENCY', 16);
    const sink = await startOtlpSink();
    const modes = [
      {
        id: 'direct',
        mode: 'direct',
        job: () => ({ transport: 'stdio', spawn: { command: NODE, args: [EVERYTHING, 'stdio'] } }),
      },
      { id: 'off', mode: 'mcp-offload, tracing off', job: (tmp) => offload(tmp, {}) },
      {
        id: 'protobuf',
        mode: 'mcp-offload, tracing on (http/protobuf, 100 % sampled)',
        job: (tmp) => offload(tmp, traced(sink.endpoint, 'http/protobuf')),
      },
      {
        id: 'json',
        mode: 'mcp-offload, tracing on (http/json, 100 % sampled)',
        job: (tmp) => offload(tmp, traced(sink.endpoint, 'http/json')),
      },
    ];
    let data;
    try {
      data = await collect(ctx, 'tracing', modes, (mode, tmp) => ({
        ...mode.job(tmp),
        ...echoJob({ sequential: n, concurrent: n, concurrency }),
      }));
    } finally {
      await sink.close();
    }
    // The traced runs must have exported: otherwise the figures would be of a proxy that traces nothing.
    if (sink.seen.requests === 0) throw new Error('the OTLP receiver got no export from the traced runs');
    ctx.log(`tracing: the receiver got ${sink.seen.requests} exports, ${fmt.bytes(sink.seen.bytes)}`);
    const rows = [];
    for (const phase of PHASES) {
      const off = distribution(data.off[phase]);
      for (const mode of modes) {
        const d = data[mode.id];
        const own = distribution(d[phase]);
        const traces = mode.id === 'protobuf' || mode.id === 'json';
        rows.push({
          id: mode.id,
          mode: mode.mode,
          phase: phase === 'concurrent' ? `concurrent (${concurrency})` : phase,
          ...own,
          throughput: median(d.throughput[phase]),
          addedMedian: traces ? own.median - off.median : undefined,
          addedP99: traces ? own.p99 - off.p99 : undefined,
          cpuPerCall: median(d.cpuPerCall[phase]),
          childPeak: median(d.childPeak),
          exports: sink.seen.requests,
        });
      }
    }
    return rows;
  },

  notes(rows) {
    const exports = rows[0]?.exports ?? 0;
    return `The local receiver took ${exports} export requests over the traced runs (batches of the SDK's batch span processor).`;
  },
};
