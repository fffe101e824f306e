// Scenario group "small-calls": the cost of the proxy on small calls. `echo {message}` of
// server-everything, direct and through mcp-offload over stdio; over Streamable HTTP through
// mcp-offload --http, through the peer mcp-proxy (punkpeye, v6), and server-everything's own
// streamableHttp mode as the direct reference. Sequential calls, then calls 16 in flight.
//
// The relay-core issue's goals (#32) are stated against floors, processes that relay and do nothing else: over
// stdio a bare byte relay (bench/lib/stdio-relay.mjs; a JSON relay, bench/lib/stdio-json-relay.mjs, is shown as the
// floor for one that reads the messages it relays), over HTTP a minimal Node HTTP proxy in front of
// server-everything's own Streamable HTTP (bench/lib/http-front.mjs, beside a TCP byte relay and
// `mcp-offload --http --url` in front of it). Both for a 2025 client (the SDK 1 client) and a 2026-07-28 one (the
// SDK v2 client pinned to 2026-07-28, before the SDK v2 fixture server test/fixtures/modern-server.mjs). The modes of
// those goals are measured once more after 5000 warm-up calls (BENCH_SMALL_CALLS_STEADY_WARMUP), the state a proxy
// that lives as long as its client's session is in. The modes: bench/lib/small-call-modes.mjs; the goal lines:
// bench/lib/small-call-goals.mjs.
//
// Environment: BENCH_SMALL_CALLS=2000 (calls per phase), BENCH_SMALL_CALLS_CONCURRENCY=16,
//              BENCH_SMALL_CALLS_STEADY_WARMUP=5000,
//              BENCH_SMALL_CALLS_MODES=stdio-direct,stdio-relay,stdio-json-relay,stdio-mcp-offload,
//                                      http-direct,http-mcp-offload,http-mcp-proxy,
//                                      url-direct,url-relay,url-http-relay,url-mcp-offload,
//                                      v2-stdio-direct,v2-stdio-relay,v2-stdio-mcp-offload,v2-stdio-mcp-offload-modern,
//                                      v2-http-direct,v2-http-mcp-offload,v2-http-mcp-offload-modern,
//                                      v2m-stdio-direct,v2m-stdio-relay,v2m-stdio-json-relay,v2m-stdio-mcp-offload,
//                                      v2m-url-direct,v2m-url-relay,v2m-url-http-relay,v2m-url-mcp-offload,
//                                      and with -steady appended: stdio-direct, stdio-relay, stdio-json-relay,
//                                      stdio-mcp-offload, v2m-stdio-direct, v2m-stdio-relay, v2m-stdio-json-relay,
//                                      v2m-stdio-mcp-offload,
//                                      url-direct, url-relay, url-http-relay, url-mcp-offload
//                                      (a mode's "added" needs its baseline, the direct mode of its section, run too)
import { EVERYTHING, WARMUP, collect, echoJob, intFromEnv } from '../lib/echo-calls.mjs';
import { distribution, median } from '../lib/stats.mjs';
import * as fmt from '../lib/format.mjs';
import { goalNotes } from '../lib/goals.mjs';
import { smallCallGoals } from '../lib/small-call-goals.mjs';
import { PHASES, TABLE_ORDER, TRANSPORT_LABELS, modesFromEnv } from '../lib/small-call-modes.mjs';

const find = (rows, id, phase) => rows.find((r) => r.id === id && r.phase === phase);

export default {
  name: 'small-calls',
  title: 'Small calls: latency and throughput',
  summaryOrder: 1,

  method: `The cost of the proxy on small calls: \`tools/call\` of \`echo {message: "hello <i>"}\` of @modelcontextprotocol/server-everything
(\`node ${EVERYTHING} stdio\`), through an SDK \`Client\`; every answer is checked (\`Echo: hello <i>\`).

- **stdio, direct**: the SDK's \`StdioClientTransport\` spawns server-everything.
- **stdio, stdio-relay (floor)**: it spawns \`node bench/lib/stdio-relay.mjs -- node <everything> stdio\`, a relay that pipes its stdin
  to the server's stdin and the server's stdout to its stdout without parsing anything: what merely having a second process in the
  path costs (two more pipe hops, two more wake-ups per message). No stdio proxy can add less than this.
- **stdio, stdio-json-relay**: \`node bench/lib/stdio-json-relay.mjs --stringify -- node <everything> stdio\`, the same relay reading each
  line as JSON and writing it again with \`JSON.stringify\`: the floor for a proxy that looks at the messages it relays.
- **stdio, mcp-offload**: it spawns \`node dist/cli.js --log-level warn --artifact-dir <fresh temp dir> -- node <everything> stdio\`.
- **HTTP, direct** (the reference): server-everything's own Streamable HTTP mode (\`node <everything> streamableHttp\`, \`PORT\` env;
  ready when it prints \`Streamable HTTP Server listening on port\`), endpoint \`/mcp\`. It is an express app that logs every request
  with \`console.log\` and keeps every event in an unbounded in-memory event store, so it is not a lower bound for an HTTP hop.
- **HTTP, mcp-offload --http**: \`node dist/cli.js --log-level warn --http 127.0.0.1:0 --artifact-dir <tmp> -- node <everything> stdio\`;
  ready at the stderr line \`mcp-offload listening on <url>\` (the URL, with the port the OS chose, is taken from it).
- **HTTP, mcp-proxy** (the peer, \`mcp-proxy\` 6.7.19 from npm, installed into bench/peers on first use; default options): \`node bench/peers/node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs --port <free port>
  --host 127.0.0.1 -- node <everything> stdio\`, endpoint \`/mcp\` (its \`--streamEndpoint\` default). It prints \`starting server on port <n>\` on stdout
  once its upstream is connected but before it listens, so it is ready when, after that line, \`GET /ping\` answers \`pong\`.
  Its defaults keep a resumability event store of up to 1000 events per session.

- **Streamable HTTP to a Streamable HTTP server** (\`bench/lib/http-front.mjs\`, which starts server-everything's own Streamable HTTP and
  puts a front before it): **direct** (no front), **TCP byte relay** (sockets piped both ways, nothing parsed: the floor for any HTTP
  proxy process), **minimal HTTP proxy** (each request parsed as HTTP and JSON, sent on with Node's HTTP client on kept-alive
  connections, the answer streamed back: the floor for a proxy that reads HTTP), and **mcp-offload --http --url** (\`node dist/cli.js
  --log-level warn --artifact-dir <tmp> --http 127.0.0.1:0 --url <server>\`). CPU per call is the front's (the wrapper's own process for
  the two relays, mcp-offload's for mcp-offload; the direct row's is the idle wrapper's). The server's output goes to a file and its
  readiness is a connection its port takes: no process reads the line server-everything writes for every request (read by the wrapper,
  that line cost the relay fronts, which run in it, a read and a wake-up a call that mcp-offload, a separate process, did not pay, and
  put a fourth busy process on the two cores beside mcp-offload only).
- **SDK v2 client** (\`@modelcontextprotocol/client\` 2.4): the same calls with the v2 client, in its 2025 mode (\`versionNegotiation:
  { mode: 'legacy' }\`: \`initialize\`, then 2025-11-25) direct, through the stdio byte relay and through mcp-offload, and pinned to
  2026-07-28 (\`{ pin: '2026-07-28' }\`: no \`initialize\`, the per-request \`_meta\` envelope) through mcp-offload, which bridges it to
  the 2025 server; the same over HTTP (server-everything's own Streamable HTTP in the 2025 mode, and \`mcp-offload --http\`). A
  2026-07-28 client cannot reach server-everything without a proxy that bridges the eras, so its reference is the same client's
  2025 mode direct.
- **SDK v2 client before a 2026-07-28 server**: the v2 client pinned to 2026-07-28 calls \`echo {text}\` of the SDK v2 fixture
  server (\`node test/fixtures/modern-server.mjs\`, \`McpServer\` on \`serveStdio\`; every answer checked: \`echo: hello <i>\`) directly,
  through the stdio byte relay, through the JSON relay, and through mcp-offload, which speaks 2026-07-28 to it too; and the same over HTTP: the
  fixture's own Streamable HTTP (\`--http <port>\`, \`createMcpHandler\`), a TCP byte relay, the minimal HTTP proxy and \`mcp-offload
  --http --url\` before it (\`bench/lib/http-front.mjs --server modern\`).
- **steady state**: stdio direct, byte relay, JSON relay and mcp-offload for both clients (server-everything with the SDK 1 client, the fixture
  server with the v2 client pinned to 2026-07-28), and over HTTP the direct, TCP relay, minimal HTTP proxy and mcp-offload fronts
  before server-everything, once more, each after 5000 warm-up calls (\`BENCH_SMALL_CALLS_STEADY_WARMUP\`) instead of ${WARMUP}: a fresh Node process runs its hot code interpreted until
  V8 has optimized it, which takes the proxy (and the server, and the client) a few thousand calls; a proxy lives as long as its
  client's session.

HTTP clients use the SDK's \`StreamableHTTPClientTransport\` (Node's fetch, keep-alive). It passes one long-lived \`AbortSignal\` to every
request and \`abort\` listeners pile up on it, so after some 1500 calls in a session the *client* prints \`MaxListenersExceededWarning\`s
(seen with every HTTP server here): a client-side cost that every HTTP mode pays alike. Each run is a fresh worker process
(bench/lib/latency-worker.mjs) that starts the server or proxy, connects (initialize), makes ${WARMUP} warm-up calls (not recorded), then
**sequential**: N calls one after the other, then **concurrent**: N calls with 16 in flight at any time (a new call starts when one
resolves). N = 2000 (\`BENCH_SMALL_CALLS\`). The modes of one section (direct, the floors, mcp-offload; fresh or steady) run in
one worker, each its own fresh processes: their sequential calls take turns of 20 timed calls (the mode that starts a round
rotating), each turn opened by one untimed call that wakes the mode's idle processes, so that the machine's drift over a run slows
them alike (whole runs alternated, a mode's run medians moved by up to 1.4 ms on this VM, more than a goal's margin); a mode's
sequential throughput is its calls ÷ the sum of their latencies, its CPU per call the phase's CPU ÷ the calls it made. Their
concurrent calls follow, one mode after the other. The sections' workers alternate from run to run (run 1 of every section, then
run 2, ...).

- **median, p99, mean**: of every call's latency (\`performance.now()\` from \`client.callTool()\` to its resolved promise), pooled over the
  runs (runs × N calls); p99 by nearest rank. **run medians**: the median of each run on its own, to show the spread between runs.
- **throughput**: calls ÷ the phase's wall time (first call to last answer), median of the runs.
- **added median / added p99**: the mode's median (p99) minus the direct mode's of the same transport and phase (stdio: direct stdio;
  HTTP: server-everything's own HTTP). **added / direct**: added median as a percentage of the direct median.
- **proxy/server CPU per call**: user + system CPU time of the process the client talks to (server-everything, mcp-offload or
  mcp-proxy, not counting its upstream) during the phase, from /proc/<pid>/stat (10 ms ticks), ÷ calls; median of the runs.
  The client, the proxy and the server share the machine's 2 cores, so CPU spent anywhere shows in the latencies.
- **proxy/server RSS**: peak RSS (VmHWM) of that process, median of the runs.

The relay-core issue's goals (#32), judged on sequential calls (one call's latency; with 16 in flight a byte relay copies a burst
of messages in one read and one write and adds next to nothing, so a multiple of it is shown, not judged):

- **stdio**: mcp-offload's added median ≤ 2× the byte relay's (stdio-relay), in a fresh process and in the steady state, for a
  2025 client (the SDK 1 client before server-everything) and a 2026-07-28 client (the v2 client pinned to 2026-07-28 before the
  fixture server, and, bridged, before server-everything: the relay then carries the same client in its 2025 mode).
- **HTTP**: mcp-offload \`--http --url\`'s added median ≤ 1.2× the minimal HTTP proxy's, both in front of the same Streamable HTTP
  server: server-everything with the SDK 1 client, fresh and steady; the fixture server with the pinned v2 client, fresh. The TCP
  byte relay's figure is shown beside it.`,

  columns: [
    { key: 'transport', label: 'transport', align: 'left' },
    { key: 'mode', label: 'mode', align: 'left' },
    {
      key: 'phase',
      label: 'phase',
      align: 'left',
      format: (v, r) => (v === 'concurrent' ? `concurrent (${r.concurrency})` : v),
    },
    { key: 'median', label: 'median', format: fmt.latency },
    { key: 'p99', label: 'p99', format: fmt.latency },
    { key: 'mean', label: 'mean', format: fmt.latency },
    { key: 'runMedians', label: 'run medians', format: (v) => v.map(fmt.latency).join(', ') },
    { key: 'throughput', label: 'throughput', format: fmt.rate },
    { key: 'addedMedian', label: 'added median', format: fmt.signedLatency },
    { key: 'addedP99', label: 'added p99', format: fmt.signedLatency },
    { key: 'addedPct', label: 'added / direct', format: (v) => fmt.percent(v, true) },
    { key: 'cpuPerCall', label: 'proxy/server CPU per call', format: fmt.latency },
    { key: 'childPeak', label: 'proxy/server RSS', format: fmt.bytes },
  ],

  async run(ctx) {
    const n = intFromEnv(ctx.env, 'BENCH_SMALL_CALLS', 2000);
    const concurrency = intFromEnv(ctx.env, 'BENCH_SMALL_CALLS_CONCURRENCY', 16);
    const steadyWarmup = intFromEnv(ctx.env, 'BENCH_SMALL_CALLS_STEADY_WARMUP', 5000);
    const modes = modesFromEnv(ctx.env);
    const data = await collect(ctx, 'small-calls', modes, (mode, tmp) => ({
      ...mode.job(tmp, ctx),
      ...echoJob({ sequential: n, concurrent: n, concurrency }),
      ...mode.calls,
      ...(mode.steady ? { warmup: steadyWarmup } : {}),
    }));
    const rows = [];
    for (const [transport, steady] of TABLE_ORDER) {
      for (const phase of PHASES) {
        for (const mode of modes.filter((m) => m.transport === transport && !!m.steady === steady)) {
          const d = data[mode.id];
          const own = distribution(d[phase]);
          const base = mode.baseline && data[mode.baseline] ? distribution(data[mode.baseline][phase]) : undefined;
          rows.push({
            id: mode.id,
            transport: TRANSPORT_LABELS[transport],
            mode: steady ? `${mode.mode}, steady state (${steadyWarmup} warm-up calls)` : mode.mode,
            name: mode.mode,
            phase,
            concurrency,
            ...own,
            runMedians: d.runMedians[phase],
            throughput: median(d.throughput[phase]),
            addedMedian: base && own.median - base.median,
            addedP99: base && own.p99 - base.p99,
            addedPct: base && (100 * (own.median - base.median)) / base.median,
            baselineMedian: base?.median,
            cpuPerCall: median(d.cpuPerCall[phase]),
            childPeak: median(d.childPeak),
            connectMs: median(d.connectMs),
          });
        }
      }
    }
    return rows;
  },

  notes(rows) {
    const lines = goalNotes(smallCallGoals(rows));
    // The HTTP proxies wrap the stdio server, so their cost over a direct stdio call is another useful view.
    const extra = PHASES.flatMap((phase) => {
      const direct = find(rows, 'stdio-direct', phase);
      return ['http-mcp-offload', 'http-mcp-proxy']
        .map((id) => find(rows, id, phase))
        .filter((r) => r && direct)
        .map((r) => `${r.mode} ${phase}: ${fmt.signedLatency(r.median - direct.median)}`);
    });
    if (extra.length) {
      lines.push(
        '',
        `Over a direct **stdio** call of the same server instead (both HTTP proxies wrap it over stdio): ${extra.join('; ')}.`,
      );
    }
    const connect = [...new Set(rows.map((r) => r.id))].map((id) => {
      const r = rows.find((x) => x.id === id);
      return `${r.transport} ${r.mode} ${fmt.ms(r.connectMs)}`;
    });
    lines.push('', `Median connect time (start + initialize, not part of any latency above): ${connect.join('; ')}.`);
    return lines.join('\n');
  },

  summary: smallCallGoals,
};
