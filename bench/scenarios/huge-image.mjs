// Scenario group "huge-image": one tool call whose result is a single image block of 1, 10 and
// 50 MiB (decoded), straight from the server ("direct") and through mcp-offload ("proxy", default
// settings: the image is written to the artifact directory and the client gets a resource_link).
// A third mode, "direct-linear", is a reference: direct, but read by mcp-offload's linear stdio reader.
//
// Environment: BENCH_HUGE_IMAGE_MB=1,10,50 (decoded sizes in MiB),
//              BENCH_HUGE_IMAGE_MODES=direct,proxy,direct-linear (which modes to run).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, median } from '../lib/stats.mjs';
import * as fmt from '../lib/format.mjs';

const MiB = 1024 * 1024;
const CALL_TIMEOUT_MS = 10 * 60_000;
const SERVER = ['test/fixtures/big-result-server.mjs'];
const DEFAULT_SIZES_MB = [1, 10, 50];

/** The fixture's image is exactly round(mb MiB) bytes (at least 69); its base64 is 4*ceil(n/3) chars. */
const decodedBytes = (mb) => Math.max(69, Math.round(mb * MiB));
const base64Length = (bytes) => 4 * Math.ceil(bytes / 3);

function sizesFromEnv(env) {
  if (!env.BENCH_HUGE_IMAGE_MB) return DEFAULT_SIZES_MB;
  const sizes = env.BENCH_HUGE_IMAGE_MB.split(',').map(Number);
  if (sizes.some((n) => !(n > 0))) throw new Error(`BENCH_HUGE_IMAGE_MB must be positive numbers, got "${env.BENCH_HUGE_IMAGE_MB}"`);
  return sizes;
}

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
    transport: 'linear',
    spawn: { command: process.execPath, args: SERVER },
    upstreamPid: 'child',
  }),
};
const DEFAULT_MODES = ['direct', 'proxy', 'direct-linear'];

function modesFromEnv(env) {
  if (!env.BENCH_HUGE_IMAGE_MODES) return DEFAULT_MODES;
  const modes = env.BENCH_HUGE_IMAGE_MODES.split(',').map((m) => m.trim());
  const unknown = modes.filter((m) => !(m in MODES));
  if (unknown.length || !modes.length) {
    throw new Error(`BENCH_HUGE_IMAGE_MODES: unknown mode(s) ${unknown.join(', ')} (known: ${Object.keys(MODES).join(', ')})`);
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

/** Throws unless the result is what this mode must deliver. */
function check(mode, call, bytes, artifactDir) {
  const { result } = call;
  const where = `${mode}, ${fmt.bytes(bytes)} image`;
  if (result.isError) throw new Error(`${where}: the tool returned isError: ${JSON.stringify(result.blocks)}`);
  if (mode !== 'proxy') {
    const image = result.blocks.find((b) => b.type === 'image');
    if (!image || image.dataLength !== base64Length(bytes)) {
      throw new Error(`${where}: expected one image block of ${base64Length(bytes)} base64 chars, got ${JSON.stringify(result.blocks)}`);
    }
    return;
  }
  if (result.blocks.some((b) => b.type === 'image')) throw new Error(`${where}: the image reached the client inline`);
  const link = result.blocks.find((b) => b.type === 'resource_link');
  if (!link || link.size !== bytes) throw new Error(`${where}: expected a resource_link of size ${bytes}, got ${JSON.stringify(result.blocks)}`);
  const stored = filesUnder(artifactDir).filter((f) => f.size === bytes);
  if (stored.length !== 1) throw new Error(`${where}: expected one ${bytes}-byte file in the artifact directory, found ${stored.length}`);
}

export default {
  name: 'huge-image',
  title: 'Huge image result',

  method: `One \`tools/call\` of \`big-image {mb}\` (test/fixtures/big-result-server.mjs): a single \`image/png\` block whose
decoded size is mb MiB, sent base64-encoded. The two compared modes both use an SDK \`Client\` over the SDK's own
\`StdioClientTransport\` (\`maxBufferSize\` 1 GiB, \`env: process.env\`); a third mode is a reference:

- **direct**: the client spawns \`node test/fixtures/big-result-server.mjs\`; the whole base64 payload reaches the client.
- **proxy**: the client spawns \`node dist/cli.js --log-level warn --artifact-dir <fresh temp dir> -- node test/fixtures/big-result-server.mjs\`
  with default settings: the proxy writes the image to the artifact directory and answers with a short summary and a \`resource_link\`
  (checked on every run: a resource_link of the exact size, and exactly one file of that size in the artifact directory).
- **direct-linear** (reference, not one of the compared modes): as direct, but the client's transport is mcp-offload's own
  \`ProcessTransport\` (dist/transports/process-transport.js, a linear stdio reader) instead of the SDK's \`StdioClientTransport\`.
  The difference from direct is the cost of the SDK's reader alone.

Each run is a fresh worker process (bench/lib/worker.mjs) that spawns a fresh server or proxy, connects (initialize) and makes the
measured call as its first request, so no warm cache flatters a mode. Runs of the modes alternate (run 1 of every mode, then run 2, ...).

- **time to result**: \`performance.now()\` around \`client.callTool(...)\`, from the call to the resolved promise: it includes the
  server producing the payload, the pipe(s), the proxy's work, and the client SDK reading, parsing and validating the response
  (the SDK's \`ReadBuffer\` concatenates every chunk onto the pending buffer, so its cost grows with the square of the message size;
  the result schema checks base64 with \`atob\`). Median of the runs, with min–max. Call timeout: 10 minutes.
- **client peak RSS**: VmHWM of the worker process (the client) from /proc/self/status, read after the call, before closing.
- **proxy peak RSS**: VmHWM of the proxy process (the transport's \`pid\`), read just before closing it.
- **upstream peak RSS**: VmHWM of the fixture server (direct: the transport's \`pid\`; proxy: found through its \`pid\` tool after the
  measured call).
- **bytes to client**: the length in bytes of the JSON-RPC response line the transport read from the child's stdout (counted on the
  wire, newline included). In proxy mode the client also receives a \`notifications/resources/list_changed\` in the same window
  (the new artifact is listed as a resource); it is listed below and not counted in the column.
- **upstream payload**: the base64 length of the image data the server sends (upstream → proxy in proxy mode, upstream → client in
  direct mode); checked against the image block the direct client receives.
- **direct/proxy**: median time direct ÷ median time proxy (above 1: the proxy delivers its answer faster).`,

  columns: [
    { key: 'image', label: 'image', format: (v) => fmt.bytes(v) },
    { key: 'mode', label: 'mode', align: 'left', format: (v) => (v === 'direct-linear' ? 'direct-linear (ref.)' : v) },
    { key: 'timeMs', label: 'time to result', format: (v) => fmt.ms(v) },
    { key: 'timeRange', label: 'min–max', format: (v) => fmt.range(v, fmt.ms) },
    { key: 'clientPeak', label: 'client peak RSS', format: (v) => fmt.bytes(v) },
    { key: 'proxyPeak', label: 'proxy peak RSS', format: (v) => fmt.bytes(v) },
    { key: 'upstreamPeak', label: 'upstream peak RSS', format: (v) => fmt.bytes(v) },
    { key: 'bytesToClient', label: 'bytes to client', format: (v) => fmt.exactBytes(v) },
    { key: 'upstreamPayload', label: 'upstream payload (base64)', format: (v) => fmt.exactBytes(v) },
    { key: 'speedup', label: 'direct/proxy', format: (v) => fmt.ratio(v) },
  ],

  async run(ctx) {
    const sizes = sizesFromEnv(ctx.env);
    const modes = modesFromEnv(ctx.env);
    const rows = [];
    for (const mb of sizes) {
      const bytes = decodedBytes(mb);
      const samples = Object.fromEntries(modes.map((m) => [m, []]));
      for (let run = 1; run <= ctx.runs; run++) {
        for (const mode of modes) {
          const artifactDir = mode === 'proxy' ? ctx.makeTempDir('mcp-offload-bench-artifacts-') : undefined;
          try {
            const label = `huge-image ${mb} MB ${mode} run ${run}/${ctx.runs}`;
            const out = await ctx.runWorker(
              {
                label,
                ...MODES[mode](artifactDir),
                maxBufferSize: 1024 ** 3,
                calls: [{ name: 'big-image', arguments: { mb }, timeoutMs: CALL_TIMEOUT_MS }],
              },
              { timeoutMs: CALL_TIMEOUT_MS + 2 * 60_000 },
            );
            const call = out.calls[0];
            check(mode, call, bytes, artifactDir);
            if (out.leftBehind) ctx.warn(`${label}: ${out.leftBehind} process(es) were still running after close and were killed`);
            samples[mode].push({
              ms: call.ms[0],
              clientPeak: out.memory.client?.peakRss,
              proxyPeak: mode === 'proxy' ? out.memory.child?.peakRss : undefined,
              upstreamPeak: out.memory.upstream?.peakRss,
              bytesToClient: call.responseBytes[0],
              other: call.otherMessages[0],
              connectMs: out.connectMs,
            });
            ctx.log(`${label}: ${fmt.ms(call.ms[0])}, response ${fmt.bytes(call.responseBytes[0])}`);
          } finally {
            if (artifactDir) ctx.removeTempDir(artifactDir);
          }
        }
      }
      const pick = (mode, key) => samples[mode].map((s) => s[key]);
      const medianOf = (mode) => median(pick(mode, 'ms'));
      for (const mode of modes) {
        const others = samples[mode].flatMap((s) => s.other);
        rows.push({
          image: bytes,
          mode,
          timeMs: medianOf(mode),
          timeRange: summarize(pick(mode, 'ms')),
          runsMs: pick(mode, 'ms'),
          clientPeak: median(pick(mode, 'clientPeak')),
          proxyPeak: mode === 'proxy' ? median(pick(mode, 'proxyPeak')) : undefined,
          upstreamPeak: median(pick(mode, 'upstreamPeak')),
          bytesToClient: median(pick(mode, 'bytesToClient')),
          otherMessages: [...new Set(others.map((m) => `${m.kind} (${m.bytes} B)`))],
          connectMs: median(pick(mode, 'connectMs')),
          upstreamPayload: base64Length(bytes),
          speedup: mode === 'proxy' && samples.direct ? medianOf('direct') / medianOf('proxy') : undefined,
        });
      }
    }
    return rows;
  },

  /** Extra markdown under the table: every run's time, and what else reached the client. */
  notes(rows) {
    const lines = ['Every run (time to result, in run order), median connect time (spawn + initialize), other messages in the call window:', ''];
    for (const r of rows) {
      const other = r.otherMessages.length ? r.otherMessages.join(', ') : 'none';
      lines.push(`- ${fmt.bytes(r.image)} ${r.mode}: ${r.runsMs.map(fmt.ms).join(', ')}; connect ${fmt.ms(r.connectMs)}; other messages: ${other}`);
    }
    return lines.join('\n');
  },
};
