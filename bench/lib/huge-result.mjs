// Shared by the huge-result groups (huge-image, huge-json): one tool call of the fixture server
// test/fixtures/big-result-server.mjs whose result carries a payload of mb MiB, straight from the
// server ("direct"), through mcp-offload ("proxy", default settings) and, as a reference, direct but
// read by mcp-offload's own stdio reader, its ProcessWire ("direct-linear"). A group gives the tool, the checks
// and the wording; this module runs the workers, checks every result and builds rows, notes and summary.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, median } from './stats.mjs';
import * as fmt from './format.mjs';
import { goalNotes } from './goals.mjs';

export const MiB = 1024 * 1024;
const CALL_TIMEOUT_MS = 10 * 60_000;
const SERVER = ['test/fixtures/big-result-server.mjs'];
const DEFAULT_SIZES_MB = [1, 10, 50, 100];
/** Direct SDK runs above this many MiB are skipped under BENCH_SKIP_SLOW=1 (they take minutes). */
const SLOW_ABOVE_MB = 50;
/** The size the time-to-result and the memory goals are stated for. */
const GOAL_MB = 50;
const GOAL_SPEEDUP = 10;
/**
 * The relay-core issue's (#32) memory goal: the proxy's peak RSS at most this multiple of the message it read (the
 * performance issue's was 3×). It counts the ~90 MB an idle proxy holds anyway, so it is judged at GOAL_MB only.
 */
const GOAL_RSS_RATIO = 1.5;
const GOAL_BYTES_PER_ARTIFACT = 2048;

export const base64Length = (bytes) => 4 * Math.ceil(bytes / 3);

/** How each mode's worker is set up. `direct-linear` is a reference, not one of the compared modes. */
const MODES = {
  direct: () => ({
    transport: 'sdk',
    spawn: { command: process.execPath, args: SERVER },
    upstreamPid: 'child',
  }),
  proxy: (artifactDir) => ({
    transport: 'sdk',
    spawn: {
      command: process.execPath,
      args: ['dist/cli.js', '--log-level', 'warn', '--artifact-dir', artifactDir, '--', process.execPath, ...SERVER],
    },
    upstreamPid: 'pid-tool',
  }),
  'direct-linear': () => ({
    transport: 'wire',
    spawn: { command: process.execPath, args: SERVER },
    upstreamPid: 'child',
  }),
};
const DEFAULT_MODES = ['direct', 'proxy', 'direct-linear'];

function sizesFromEnv(env, name) {
  if (!env[name]) return DEFAULT_SIZES_MB;
  const sizes = env[name].split(',').map(Number);
  if (sizes.some((n) => !(n > 0))) throw new Error(`${name} must be positive numbers, got "${env[name]}"`);
  return sizes;
}

function modesFromEnv(env, name) {
  if (!env[name]) return DEFAULT_MODES;
  const modes = env[name].split(',').map((m) => m.trim());
  const unknown = modes.filter((m) => !(m in MODES));
  if (unknown.length || !modes.length) {
    throw new Error(`${name}: unknown mode(s) ${unknown.join(', ')} (known: ${Object.keys(MODES).join(', ')})`);
  }
  return modes;
}

/** Every regular file under dir (recursively) with its size. */
function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push({ path, size: statSync(path).size });
  }
  return out;
}

/** Throws unless the proxy stored exactly one artifact of `bytes` and answered with a link to it. */
function checkProxy(where, result, bytes, artifactDir) {
  const link = result.blocks.find((b) => b.type === 'resource_link');
  if (!link || link.size !== bytes)
    throw new Error(`${where}: expected a resource_link of size ${bytes}, got ${JSON.stringify(result.blocks)}`);
  const stored = filesUnder(artifactDir).filter((f) => f.size === bytes);
  if (stored.length !== 1)
    throw new Error(`${where}: expected one ${bytes}-byte file in the artifact directory, found ${stored.length}`);
}

/**
 * A scenario group. spec:
 *   name, title, summaryOrder, what ("image", "JSON text")
 *   env          prefix of the group's variables: <env>_MB, <env>_MODES
 *   tool         the fixture's tool, called with { mb }
 *   decodedBytes(mb)  the payload's decoded size
 *   payloadChars(bytes) the characters of the payload string the server sends (checked in direct modes)
 *   checkDirect(result, bytes) error message or undefined: the whole payload reached the client
 *   checkProxy(result, bytes)  error message or undefined: the payload did not reach the client
 *   inlineUpTo   optional: payloads of at most this many bytes pass through the proxy as they came (checked
 *                as in direct modes)
 *   method       markdown: the group's own introduction (the common part is appended)
 */
export function hugeResultGroup(spec) {
  const sizesVar = `${spec.env}_MB`;
  const modesVar = `${spec.env}_MODES`;

  function check(mode, call, bytes, artifactDir) {
    const { result } = call;
    const where = `${mode}, ${fmt.bytes(bytes)} ${spec.what}`;
    if (result.isError) throw new Error(`${where}: the tool returned isError: ${JSON.stringify(result.blocks)}`);
    const stored = mode === 'proxy' && bytes > (spec.inlineUpTo ?? -1);
    const problem = stored ? spec.checkProxy(result, bytes) : spec.checkDirect(result, bytes);
    if (problem) throw new Error(`${where}: ${problem}`);
    if (stored) checkProxy(where, result, bytes, artifactDir);
  }

  const proxyRows = (rows) => rows.filter((r) => r.mode === 'proxy' && !r.skipped);

  function summary(rows) {
    const proxies = proxyRows(rows);
    const at = proxies.find((r) => r.size === spec.decodedBytes(GOAL_MB));
    const speedups = proxies.filter((r) => Number.isFinite(r.speedup));
    const ratios = proxies.filter((r) => Number.isFinite(r.rssRatio));
    const others = ratios.filter((r) => r !== at).map((r) => `${fmt.bytes(r.size)} ${fmt.ratio(r.rssRatio)}`);
    const perArtifact = proxies.filter((r) => Number.isFinite(r.bytesPerArtifact));
    return [
      {
        issue: '#32',
        goal: `Huge results (${spec.what}, ${GOAL_MB} MB): proxy peak RSS ≤ ${GOAL_RSS_RATIO}× the message size`,
        measured:
          (Number.isFinite(at?.rssRatio)
            ? `${fmt.bytes(at.proxyPeak)} ÷ ${fmt.bytes(at.messageBytes)} = ${fmt.ratio(at.rssRatio)}`
            : at
              ? `not measured (the message size needs a direct or direct-linear run at ${GOAL_MB} MB)`
              : `not measured (no ${GOAL_MB} MB proxy run)`) +
          (others.length ? ` (other sizes, not judged: ${others.join(', ')})` : ''),
        met: Number.isFinite(at?.rssRatio) ? at.rssRatio <= GOAL_RSS_RATIO : undefined,
      },
      {
        goal: `Huge results (${spec.what}): time to result ≥ ${GOAL_SPEEDUP}× faster through the proxy than direct at ${GOAL_MB} MB`,
        measured: speedups.length
          ? speedups.map((r) => `${fmt.bytes(r.size)} ${fmt.ratio(r.speedup)}`).join(', ') +
            (at?.speedup ? ` (${GOAL_MB} MB: direct ${fmt.ms(at.directMs)}, proxy ${fmt.ms(at.timeMs)})` : '')
          : 'not measured (needs the direct and proxy modes)',
        met: at && Number.isFinite(at.speedup) ? at.speedup >= GOAL_SPEEDUP : undefined,
      },
      {
        goal: `Huge results (${spec.what}): bytes to the client < 2 KB per artifact`,
        measured: perArtifact.length
          ? `at most ${fmt.exactBytes(Math.max(...perArtifact.map((r) => r.bytesPerArtifact)))} per artifact (1 artifact per call)`
          : '—',
        met: perArtifact.length ? perArtifact.every((r) => r.bytesPerArtifact < GOAL_BYTES_PER_ARTIFACT) : undefined,
      },
    ];
  }

  return {
    name: spec.name,
    title: spec.title,
    summaryOrder: spec.summaryOrder,

    method: `${spec.method.trim()}

Each run is a fresh worker process (bench/lib/worker.mjs) that spawns a fresh server or proxy, connects (initialize) and makes the
measured call as its first request, so no warm cache flatters a mode. Runs of the modes alternate (run 1 of every mode, then run 2, ...).
Sizes: ${DEFAULT_SIZES_MB.join(', ')} MiB by default (\`${sizesVar}\`; modes: \`${modesVar}\`). With \`BENCH_SKIP_SLOW=1\` the direct mode is skipped
above ${SLOW_ABOVE_MB} MiB (the SDK client takes minutes there). A direct run that fails (past the call timeout, say) is
shown as failed, and that size's direct mode runs no more; the proxy's figures stand without it.

- **time to result**: \`performance.now()\` around \`client.callTool(...)\`, from the call to the resolved promise: it includes the
  server producing the payload, the pipe(s), the proxy's work, and the client SDK reading, parsing and validating the response
  (the SDK's \`ReadBuffer\` concatenates every chunk onto the pending buffer, so its cost grows with the square of the message size).
  Median of the runs, with min–max. Call timeout: 10 minutes.
- **client peak RSS**: VmHWM of the worker process (the client) from /proc/self/status, read after the call, before closing.
- **proxy peak RSS**: VmHWM of the proxy process (the transport's \`pid\`), read just before closing it.
- **upstream peak RSS**: VmHWM of the fixture server (direct: the transport's \`pid\`; proxy: found through its \`pid\` tool after the
  measured call).
- **bytes to client**: the length in bytes of the JSON-RPC response line the transport read from the child's stdout (counted on the
  wire, newline included). In proxy mode the client also receives a \`notifications/resources/list_changed\` in the same window
  (the new artifact is listed as a resource); it is listed below and not counted in the column. **per artifact**: bytes to client ÷
  the artifacts the proxy lists in \`_meta["mcp-offload/artifacts"]\` (goal: under 2 KB).
- **upstream payload**: the length of the payload string the server sends (base64 characters); checked against what the direct client receives.
- **message**: the size of the upstream's JSON-RPC response line (bytes, newline included), as the direct client counted it on the wire
  (median of the direct, else the direct-linear runs; the proxy reads the very same line). **proxy RSS ÷ message**: proxy peak RSS ÷ message
  (the relay-core issue's goal, #32: at most ${GOAL_RSS_RATIO}× at ${GOAL_MB} MB; the performance issue's was 3×. It includes the ~90 MB an
  idle proxy holds anyway, which dominates at small sizes, so only the ${GOAL_MB} MB row is judged).
- **direct/proxy**: median time direct ÷ median time proxy (above 1: the proxy delivers its answer faster; goal: at least ${GOAL_SPEEDUP}× at ${GOAL_MB} MB).`,

    columns: [
      { key: 'size', label: spec.what, format: (v) => fmt.bytes(v) },
      {
        key: 'mode',
        label: 'mode',
        align: 'left',
        format: (v) => (v === 'direct-linear' ? 'direct-linear (ref.)' : v),
      },
      {
        key: 'timeMs',
        label: 'time to result',
        format: (v, r) => (r.failure !== undefined ? 'failed' : r.skipped ? 'skipped' : fmt.ms(v)),
      },
      { key: 'timeRange', label: 'min–max', format: (v) => fmt.range(v, fmt.ms) },
      { key: 'clientPeak', label: 'client peak RSS', format: (v) => fmt.bytes(v) },
      { key: 'proxyPeak', label: 'proxy peak RSS', format: (v) => fmt.bytes(v) },
      { key: 'upstreamPeak', label: 'upstream peak RSS', format: (v) => fmt.bytes(v) },
      { key: 'bytesToClient', label: 'bytes to client', format: (v) => fmt.exactBytes(v) },
      { key: 'bytesPerArtifact', label: 'per artifact', format: (v) => fmt.exactBytes(v) },
      { key: 'upstreamPayload', label: 'upstream payload', format: (v) => fmt.exactBytes(v) },
      { key: 'messageBytes', label: 'message', format: (v) => fmt.exactBytes(v) },
      { key: 'rssRatio', label: 'proxy RSS ÷ message', format: (v) => fmt.ratio(v) },
      { key: 'speedup', label: 'direct/proxy', format: (v) => fmt.ratio(v) },
    ],

    async run(ctx) {
      const sizes = sizesFromEnv(ctx.env, sizesVar);
      const modes = modesFromEnv(ctx.env, modesVar);
      const skipSlow = Boolean(ctx.env.BENCH_SKIP_SLOW);
      const rows = [];
      for (const mb of sizes) {
        const bytes = spec.decodedBytes(mb);
        const active = modes.filter((m) => !(skipSlow && m === 'direct' && mb > SLOW_ABOVE_MB));
        const samples = Object.fromEntries(active.map((m) => [m, []]));
        /** Why a reference mode (the SDK client direct) has no figures at this size: its run that failed. */
        const failures = {};
        for (let run = 1; run <= ctx.runs; run++) {
          for (const mode of active) {
            if (failures[mode] !== undefined) continue;
            const artifactDir = mode === 'proxy' ? ctx.makeTempDir('mcp-offload-bench-artifacts-') : undefined;
            try {
              const label = `${spec.name} ${mb} MB ${mode} run ${run}/${ctx.runs}`;
              let out;
              try {
                out = await ctx.runWorker(
                  {
                    label,
                    ...MODES[mode](artifactDir),
                    maxBufferSize: 1024 ** 3,
                    calls: [{ name: spec.tool, arguments: { mb }, timeoutMs: CALL_TIMEOUT_MS }],
                  },
                  { timeoutMs: CALL_TIMEOUT_MS + 2 * 60_000 },
                );
              } catch (error) {
                // The SDK client's read grows with the square of the message: on a slow machine its 100 MB run
                // passes the call timeout. It is a reference only; the proxy's figures and the goals stand without
                // it. (A result it did get is still checked below: a wrong one fails the group.)
                if (mode !== 'direct') throw error;
                failures[mode] = error?.message ?? String(error);
                ctx.warn(`${label}: no figures at this size (${failures[mode]})`);
                continue;
              }
              const call = out.calls[0];
              check(mode, call, bytes, artifactDir);
              if (out.leftBehind)
                ctx.warn(`${label}: ${out.leftBehind} process(es) were still running after close and were killed`);
              samples[mode].push({
                ms: call.ms[0],
                clientPeak: out.memory.client?.peakRss,
                proxyPeak: mode === 'proxy' ? out.memory.child?.peakRss : undefined,
                upstreamPeak: out.memory.upstream?.peakRss,
                bytesToClient: call.responseBytes[0],
                artifacts: call.result.artifacts,
                other: call.otherMessages[0],
                connectMs: out.connectMs,
              });
              ctx.log(`${label}: ${fmt.ms(call.ms[0])}, response ${fmt.bytes(call.responseBytes[0])}`);
            } finally {
              if (artifactDir) ctx.removeTempDir(artifactDir);
            }
          }
        }
        const pick = (mode, key) => samples[mode]?.map((s) => s[key]) ?? [];
        const medianOf = (mode) => median(pick(mode, 'ms'));
        // The upstream's response line, as a direct client read it; the proxy reads the same line.
        const messageBytes = [
          median(pick('direct', 'bytesToClient')),
          median(pick('direct-linear', 'bytesToClient')),
        ].find(Number.isFinite);
        const direct = samples.direct !== undefined && failures.direct === undefined;
        for (const mode of modes) {
          if (!samples[mode] || failures[mode] !== undefined) {
            rows.push({ size: bytes, mode, skipped: true, failure: failures[mode], otherMessages: [], runsMs: [] });
            continue;
          }
          const others = samples[mode].flatMap((s) => s.other);
          const proxy = mode === 'proxy';
          const proxyPeak = proxy ? median(pick(mode, 'proxyPeak')) : undefined;
          const bytesToClient = median(pick(mode, 'bytesToClient'));
          const artifacts = median(pick(mode, 'artifacts'));
          rows.push({
            size: bytes,
            mode,
            timeMs: medianOf(mode),
            timeRange: summarize(pick(mode, 'ms')),
            runsMs: pick(mode, 'ms'),
            clientPeak: median(pick(mode, 'clientPeak')),
            proxyPeak,
            upstreamPeak: median(pick(mode, 'upstreamPeak')),
            bytesToClient,
            bytesPerArtifact: proxy && artifacts > 0 ? bytesToClient / artifacts : undefined,
            otherMessages: [...new Set(others.map((m) => `${m.kind} (${m.bytes} B)`))],
            connectMs: median(pick(mode, 'connectMs')),
            upstreamPayload: spec.payloadChars(bytes),
            messageBytes: proxy ? messageBytes : undefined,
            rssRatio: proxy && messageBytes ? proxyPeak / messageBytes : undefined,
            directMs: proxy && direct ? medianOf('direct') : undefined,
            speedup: proxy && direct ? medianOf('direct') / medianOf('proxy') : undefined,
          });
        }
      }
      return rows;
    },

    /** Extra markdown under the table: every run's time, what else reached the client, and the goals. */
    notes(rows) {
      const lines = [
        'Every run (time to result, in run order), median connect time (spawn + initialize), other messages in the call window:',
        '',
      ];
      for (const r of rows) {
        if (r.skipped) {
          lines.push(
            `- ${fmt.bytes(r.size)} ${r.mode}: ${r.failure !== undefined ? `failed, no figures (${r.failure})` : 'skipped (BENCH_SKIP_SLOW=1)'}`,
          );
          continue;
        }
        const other = r.otherMessages.length ? r.otherMessages.join(', ') : 'none';
        lines.push(
          `- ${fmt.bytes(r.size)} ${r.mode}: ${r.runsMs.map(fmt.ms).join(', ')}; connect ${fmt.ms(r.connectMs)}; other messages: ${other}`,
        );
      }
      lines.push('', ...goalNotes(summary(rows)));
      return lines.join('\n');
    },

    summary,
  };
}
