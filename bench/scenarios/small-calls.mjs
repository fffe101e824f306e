// Scenario group "small-calls": the cost of the proxy on small calls. `echo {message}` of
// server-everything, direct and through mcp-offload over stdio; over Streamable HTTP through
// mcp-offload --http, through the peer mcp-proxy (punkpeye, v6), and server-everything's own
// streamableHttp mode as the direct reference. Sequential calls, then calls 16 in flight.
//
// A bare byte relay process (bench/lib/stdio-relay.mjs) between client and server is the floor: what
// any proxy process adds over stdio before it does any work; a JSON relay (bench/lib/stdio-json-relay.mjs) is the floor
// for one that reads the messages it relays. Over HTTP the same two floors stand in front of server-everything's own
// Streamable HTTP (bench/lib/http-front.mjs: a TCP byte relay, and a minimal HTTP proxy), beside
// `mcp-offload --http --url` in front of it. The relays and mcp-offload are measured once more after 5000 warm-up calls
// (BENCH_SMALL_CALLS_STEADY_WARMUP), the state a proxy that lives as long as its client's session is in.
//
// Environment: BENCH_SMALL_CALLS=2000 (calls per phase), BENCH_SMALL_CALLS_CONCURRENCY=16,
//              BENCH_SMALL_CALLS_STEADY_WARMUP=5000,
//              BENCH_SMALL_CALLS_MODES=stdio-direct,stdio-relay,stdio-json-relay,stdio-mcp-offload,
//                                      http-direct,http-mcp-offload,http-mcp-proxy,
//                                      url-direct,url-relay,url-http-relay,url-mcp-offload,
//                                      v2-stdio-direct,v2-stdio-relay,v2-stdio-mcp-offload,v2-stdio-mcp-offload-modern,
//                                      v2-http-direct,v2-http-mcp-offload,v2-http-mcp-offload-modern,
//                                      v2m-stdio-direct,v2m-stdio-relay,v2m-stdio-mcp-offload,
//                                      v2m-url-direct,v2m-url-relay,v2m-url-mcp-offload,
//                                      stdio-direct-steady,stdio-relay-steady,stdio-mcp-offload-steady,
//                                      url-direct-steady,url-relay-steady,url-mcp-offload-steady
import { EVERYTHING, WARMUP, collect, echoJob, httpFrontJob, intFromEnv } from '../lib/echo-calls.mjs';
import { distribution, median } from '../lib/stats.mjs';
import * as fmt from '../lib/format.mjs';
import { peerPath } from '../lib/peers.mjs';

const NODE = process.execPath;
const GOAL_PCT = 15;
/** A bare byte relay (no parsing): the least a second process in the stdio path can cost. */
const RELAY = 'bench/lib/stdio-relay.mjs';
const JSON_RELAY = 'bench/lib/stdio-json-relay.mjs';
const OFFLOAD = (tmp) => ['dist/cli.js', '--log-level', 'warn', '--artifact-dir', tmp];
/** Issue #13's goal: the added median within this multiple of a bare relay's. */
const RELAY_MULTIPLE = 2;
/** server-everything's own Streamable HTTP with `front` before it. */
const urlFront = (front) => () => httpFrontJob(front);

const MODES = [
  {
    id: 'stdio-direct',
    transport: 'stdio',
    mode: 'direct',
    job: () => ({ transport: 'stdio', spawn: { command: NODE, args: [EVERYTHING, 'stdio'] } }),
  },
  {
    id: 'stdio-relay',
    transport: 'stdio',
    mode: 'stdio-relay (floor)',
    baseline: 'stdio-direct',
    job: () => ({ transport: 'stdio', spawn: { command: NODE, args: [RELAY, '--', NODE, EVERYTHING, 'stdio'] } }),
  },
  {
    id: 'stdio-mcp-offload',
    transport: 'stdio',
    mode: 'mcp-offload',
    baseline: 'stdio-direct',
    job: (tmp) => ({
      transport: 'stdio',
      spawn: { command: NODE, args: [...OFFLOAD(tmp), '--', NODE, EVERYTHING, 'stdio'] },
    }),
  },
  {
    id: 'stdio-json-relay',
    transport: 'stdio',
    mode: 'stdio-json-relay (floor for a proxy that reads messages)',
    baseline: 'stdio-direct',
    job: () => ({
      transport: 'stdio',
      spawn: { command: NODE, args: [JSON_RELAY, '--stringify', '--', NODE, EVERYTHING, 'stdio'] },
    }),
  },
  {
    id: 'http-direct',
    transport: 'http',
    mode: 'direct (server-everything streamableHttp)',
    job: () => ({
      transport: 'http',
      spawn: { command: NODE, args: [EVERYTHING, 'streamableHttp'], env: { PORT: '{port}' } },
      ready: { stream: 'stderr', pattern: 'Streamable HTTP Server listening on port' },
      url: 'http://127.0.0.1:{port}/mcp',
    }),
  },
  {
    id: 'http-mcp-offload',
    transport: 'http',
    mode: 'mcp-offload --http',
    baseline: 'http-direct',
    job: (tmp) => ({
      transport: 'http',
      spawn: { command: NODE, args: [...OFFLOAD(tmp), '--http', '127.0.0.1:0', '--', NODE, EVERYTHING, 'stdio'] },
      ready: { stream: 'stderr', pattern: '^mcp-offload listening on (\\S+)' },
    }),
  },
  {
    id: 'http-mcp-proxy',
    transport: 'http',
    mode: 'mcp-proxy (peer)',
    baseline: 'http-direct',
    job: (tmp, ctx) => ({
      transport: 'http',
      spawn: {
        command: NODE,
        args: [
          peerPath(ctx.root, 'mcp-proxy/dist/bin/mcp-proxy.mjs', ctx.log),
          '--port',
          '{port}',
          '--host',
          '127.0.0.1',
          '--',
          NODE,
          EVERYTHING,
          'stdio',
        ],
      },
      // It prints this on stdout once its upstream is connected, just before it starts listening.
      ready: { stream: 'stdout', pattern: '^starting server on port', ping: '/ping' },
      url: 'http://127.0.0.1:{port}/mcp',
    }),
  },
  {
    id: 'url-direct',
    transport: 'url',
    mode: 'direct (server-everything streamableHttp)',
    job: urlFront('direct'),
  },
  { id: 'url-relay', transport: 'url', mode: 'TCP byte relay (floor)', baseline: 'url-direct', job: urlFront('relay') },
  {
    id: 'url-http-relay',
    transport: 'url',
    mode: 'minimal HTTP proxy (floor for a proxy that reads HTTP)',
    baseline: 'url-direct',
    job: urlFront('http-relay'),
  },
  {
    id: 'url-mcp-offload',
    transport: 'url',
    mode: 'mcp-offload --http --url',
    baseline: 'url-direct',
    job: urlFront('offload'),
  },
];
// The SDK v2 client in its 2025 mode and pinned to 2026-07-28 (issue #13): server-everything speaks only 2025, so a
// 2026-07-28 client reaches it only through a proxy that bridges the eras, and the reference for its calls is the same
// client in its 2025 mode talking to the server directly.
const v2 = (client, job) => (tmp, ctx) => ({ ...job(tmp, ctx), client });
const stdioDirect = MODES.find((m) => m.id === 'stdio-direct').job;
const stdioRelay = MODES.find((m) => m.id === 'stdio-relay').job;
const stdioOffload = MODES.find((m) => m.id === 'stdio-mcp-offload').job;
const httpDirect = MODES.find((m) => m.id === 'http-direct').job;
const httpOffload = MODES.find((m) => m.id === 'http-mcp-offload').job;
MODES.push(
  { id: 'v2-stdio-direct', transport: 'v2-stdio', mode: 'direct (2025 mode)', job: v2('v2-legacy', stdioDirect) },
  {
    id: 'v2-stdio-relay',
    transport: 'v2-stdio',
    mode: 'stdio-relay (floor; 2025 mode)',
    baseline: 'v2-stdio-direct',
    job: v2('v2-legacy', stdioRelay),
  },
  {
    id: 'v2-stdio-mcp-offload',
    transport: 'v2-stdio',
    mode: 'mcp-offload (2025 mode)',
    baseline: 'v2-stdio-direct',
    job: v2('v2-legacy', stdioOffload),
  },
  {
    id: 'v2-stdio-mcp-offload-modern',
    transport: 'v2-stdio',
    mode: 'mcp-offload (pinned to 2026-07-28)',
    baseline: 'v2-stdio-direct',
    job: v2('v2-modern', stdioOffload),
  },
  {
    id: 'v2-http-direct',
    transport: 'v2-http',
    mode: 'direct (server-everything streamableHttp; 2025 mode)',
    job: v2('v2-legacy', httpDirect),
  },
  {
    id: 'v2-http-mcp-offload',
    transport: 'v2-http',
    mode: 'mcp-offload --http (2025 mode)',
    baseline: 'v2-http-direct',
    job: v2('v2-legacy', httpOffload),
  },
  {
    id: 'v2-http-mcp-offload-modern',
    transport: 'v2-http',
    mode: 'mcp-offload --http (pinned to 2026-07-28)',
    baseline: 'v2-http-direct',
    job: v2('v2-modern', httpOffload),
  },
);

// A 2026-07-28 client before a 2026-07-28 server (issue #13): the SDK v2 fixture server
// (test/fixtures/modern-server.mjs, whose `echo` takes `text`), direct, behind the byte relay and behind mcp-offload,
// the client pinned to 2026-07-28.
const MODERN_SERVER = 'test/fixtures/modern-server.mjs';
const modernEcho = { call: { name: 'echo', arguments: { text: 'hello' } }, expect: 'echo: {arg}' };
MODES.push(
  {
    id: 'v2m-stdio-direct',
    transport: 'v2m-stdio',
    mode: 'direct',
    calls: modernEcho,
    job: () => ({ transport: 'stdio', client: 'v2-modern', spawn: { command: NODE, args: [MODERN_SERVER] } }),
  },
  {
    id: 'v2m-stdio-relay',
    transport: 'v2m-stdio',
    mode: 'stdio-relay (floor)',
    baseline: 'v2m-stdio-direct',
    calls: modernEcho,
    job: () => ({
      transport: 'stdio',
      client: 'v2-modern',
      spawn: { command: NODE, args: [RELAY, '--', NODE, MODERN_SERVER] },
    }),
  },
  {
    id: 'v2m-stdio-mcp-offload',
    transport: 'v2m-stdio',
    mode: 'mcp-offload',
    baseline: 'v2m-stdio-direct',
    calls: modernEcho,
    job: (tmp) => ({
      transport: 'stdio',
      client: 'v2-modern',
      spawn: { command: NODE, args: [...OFFLOAD(tmp), '--', NODE, MODERN_SERVER] },
    }),
  },
  ...[
    ['direct', "direct (the server's own Streamable HTTP)"],
    ['relay', 'TCP byte relay (floor)'],
    ['offload', 'mcp-offload --http --url'],
  ].map(([front, mode]) => ({
    id: `v2m-url-${front === 'offload' ? 'mcp-offload' : front}`,
    transport: 'v2m-url',
    mode,
    ...(front === 'direct' ? {} : { baseline: 'v2m-url-direct' }),
    calls: modernEcho,
    job: () => ({ ...httpFrontJob(front, undefined, 'modern'), client: 'v2-modern' }),
  })),
);

// The same modes once more in the steady state: after BENCH_SMALL_CALLS_STEADY_WARMUP warm-up calls.
for (const id of ['stdio-direct', 'stdio-relay', 'stdio-mcp-offload', 'url-direct', 'url-relay', 'url-mcp-offload']) {
  const mode = MODES.find((m) => m.id === id);
  MODES.push({
    ...mode,
    id: `${id}-steady`,
    steady: true,
    ...(mode.baseline ? { baseline: `${mode.baseline}-steady` } : {}),
  });
}

function modesFromEnv(env) {
  if (!env.BENCH_SMALL_CALLS_MODES) return MODES;
  const ids = env.BENCH_SMALL_CALLS_MODES.split(',').map((s) => s.trim());
  const unknown = ids.filter((id) => !MODES.some((m) => m.id === id));
  if (unknown.length || !ids.length) {
    throw new Error(
      `BENCH_SMALL_CALLS_MODES: unknown mode(s) ${unknown.join(', ')} (known: ${MODES.map((m) => m.id).join(', ')})`,
    );
  }
  return MODES.filter((m) => ids.includes(m.id));
}

const PHASES = ['sequential', 'concurrent'];
const TRANSPORT_LABELS = {
  stdio: 'stdio',
  http: 'Streamable HTTP',
  url: 'Streamable HTTP to a Streamable HTTP server',
  'v2-stdio': 'stdio, SDK v2 client',
  'v2-http': 'Streamable HTTP, SDK v2 client',
  'v2m-stdio': 'stdio, SDK v2 client pinned to 2026-07-28, a 2026-07-28 server',
  'v2m-url': 'Streamable HTTP, SDK v2 client pinned to 2026-07-28, a 2026-07-28 Streamable HTTP server',
};
/** Table sections: each transport fresh, then the steady-state measurements. */
const TABLE_ORDER = [
  ['stdio', false],
  ['http', false],
  ['url', false],
  ['v2-stdio', false],
  ['v2-http', false],
  ['v2m-stdio', false],
  ['v2m-url', false],
  ['stdio', true],
  ['url', true],
];
const find = (rows, id, phase) => rows.find((r) => r.id === id && r.phase === phase);
const met = (ok) => (ok === undefined ? '—' : ok ? 'met' : 'not met');

/** Goal lines (shown, never asserted), for the notes and the summary. */
function goals(rows) {
  const lines = [];
  const added = (r) =>
    `${fmt.signedLatency(r.addedMedian)} on ${fmt.latency(r.baselineMedian)} = ${fmt.percent(r.addedPct, true)}`;
  const pctLine = (id, label, floorId) => {
    const rs = PHASES.map((p) => find(rows, id, p)).filter((r) => r?.addedPct !== undefined);
    if (!rs.length) return;
    const floor = (r) => find(rows, floorId, r.phase);
    lines.push({
      goal: `Small calls, ${label}: added median latency < ${GOAL_PCT} % of the direct call's median`,
      measured: rs
        .map(
          (r) =>
            `${r.phase}: ${added(r)}${floor(r)?.addedPct !== undefined ? ` (floor, a bare byte relay: ${added(floor(r))})` : ''}`,
        )
        .join('; '),
      met: rs.every((r) => r.addedPct < GOAL_PCT),
    });
  };
  pctLine('stdio-mcp-offload', 'stdio (mcp-offload vs direct)', 'stdio-relay');
  const peer = PHASES.map((p) => [find(rows, 'http-mcp-offload', p), find(rows, 'http-mcp-proxy', p)]).filter(
    ([a, b]) => a && b,
  );
  if (peer.length) {
    lines.push({
      goal: "Small calls, HTTP: mcp-offload's added median latency below mcp-proxy's",
      measured: peer
        .map(([a, b]) =>
          a.addedMedian !== undefined
            ? `${a.phase}: ${fmt.signedLatency(a.addedMedian)} vs ${fmt.signedLatency(b.addedMedian)} (medians ${fmt.latency(a.median)} vs ${fmt.latency(b.median)})`
            : `${a.phase}: medians ${fmt.latency(a.median)} vs ${fmt.latency(b.median)}`,
        )
        .join('; '),
      met: peer.every(([a, b]) => a.median < b.median), // same baseline: comparing added latency is comparing medians
    });
  }
  pctLine('http-mcp-offload', 'HTTP (mcp-offload --http vs server-everything streamableHttp)');
  relayLine(lines, rows, 'stdio, fresh process', 'stdio-mcp-offload', 'stdio-relay', 'stdio-json-relay');
  relayLine(lines, rows, 'stdio, steady state', 'stdio-mcp-offload-steady', 'stdio-relay-steady');
  relayLine(
    lines,
    rows,
    'HTTP in front of a Streamable HTTP server, fresh process',
    'url-mcp-offload',
    'url-relay',
    'url-http-relay',
  );
  relayLine(
    lines,
    rows,
    'HTTP in front of a Streamable HTTP server, steady state',
    'url-mcp-offload-steady',
    'url-relay-steady',
  );
  relayLine(
    lines,
    rows,
    'stdio, a 2026-07-28 client (SDK v2), fresh process',
    'v2-stdio-mcp-offload-modern',
    'v2-stdio-relay',
    'v2-stdio-mcp-offload',
  );
  relayLine(
    lines,
    rows,
    'stdio, a 2026-07-28 client before a 2026-07-28 server (SDK v2), fresh process',
    'v2m-stdio-mcp-offload',
    'v2m-stdio-relay',
  );
  relayLine(
    lines,
    rows,
    'HTTP, a 2026-07-28 client before a 2026-07-28 Streamable HTTP server (SDK v2), fresh process',
    'v2m-url-mcp-offload',
    'v2m-url-relay',
  );
  eraLine(lines, rows, 'stdio', 'v2-stdio-mcp-offload-modern', 'v2-stdio-mcp-offload');
  eraLine(lines, rows, 'HTTP', 'v2-http-mcp-offload-modern', 'v2-http-mcp-offload');
  return lines;
}

/**
 * A goal line that compares mode `id` with mode `otherId` phase by phase: `describe(row, other, phase)` says what was
 * measured, `judge(row, other)` whether the goal is met; only sequential calls are judged (one call's latency).
 */
function comparedLine(lines, rows, goal, id, otherId, describe, judge) {
  const parts = [];
  let met;
  for (const phase of PHASES) {
    const r = find(rows, id, phase);
    const other = find(rows, otherId, phase);
    if (r?.addedMedian === undefined || other?.addedMedian === undefined) continue;
    parts.push(describe(r, other, phase) + (phase === 'concurrent' ? ', not judged' : ''));
    if (phase === 'sequential') met = judge(r, other);
  }
  if (parts.length) lines.push({ goal, measured: parts.join('; '), met });
}

/**
 * Issue #13's goal for 2026-07-28 traffic, where no byte relay can stand in (the server speaks only 2025): a
 * 2026-07-28 client's call costs no more than the same client's call in its 2025 mode.
 */
function eraLine(lines, rows, label, modernId, legacyId) {
  comparedLine(
    lines,
    rows,
    `Small calls, ${label}, a 2026-07-28 client (SDK v2): mcp-offload adds no more than for the same client in its 2025 mode (issue #13)`,
    modernId,
    legacyId,
    (modern, legacy, phase) =>
      `${phase}: ${fmt.signedLatency(modern.addedMedian)} against ${fmt.signedLatency(legacy.addedMedian)} in the 2025 mode` +
      ` (proxy CPU per call ${fmt.latency(modern.cpuPerCall)} against ${fmt.latency(legacy.cpuPerCall)})`,
    (modern, legacy) => modern.addedMedian <= legacy.addedMedian,
  );
}

/**
 * Issue #13's goal line for one pair: mcp-offload's added median as a multiple of the bare relay's, judged on
 * sequential calls (one call's latency). With 16 in flight the byte relay adds nothing measurable (it copies a burst
 * of messages in one read and one write; its added median lands between about -0.05 and +0.1 ms run to run), so a
 * multiple of it is shown but not judged; `reader` (a relay that parses every message) shows what reading messages
 * alone costs there.
 */
function relayLine(lines, rows, label, id, relayId, readerId) {
  const multiple = (r, floor) =>
    r?.addedMedian !== undefined && floor?.addedMedian > 0 ? r.addedMedian / floor.addedMedian : undefined;
  comparedLine(
    lines,
    rows,
    `Small calls, ${label}: mcp-offload's added median within ${RELAY_MULTIPLE}× of a bare byte relay's (issue #13)`,
    id,
    relayId,
    (r, floor, phase) => {
      const m = multiple(r, floor);
      const reader = readerId ? find(rows, readerId, phase) : undefined;
      const readerM = multiple(reader, floor);
      return (
        `${phase}: ${fmt.signedLatency(r.addedMedian)} against the relay's ${fmt.signedLatency(floor.addedMedian)}` +
        (m !== undefined ? ` = ${m.toFixed(2)}×` : ' (no multiple: the relay added nothing)') +
        (reader?.addedMedian !== undefined
          ? ` (${reader.mode}: ${fmt.signedLatency(reader.addedMedian)}${readerM !== undefined ? `, ${readerM.toFixed(2)}×` : ''})`
          : '')
      );
    },
    (r, floor) => {
      const m = multiple(r, floor);
      return m !== undefined && m <= RELAY_MULTIPLE;
    },
  );
}

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
  the two relays, mcp-offload's for mcp-offload; the direct row's is the idle wrapper's).
- **SDK v2 client** (\`@modelcontextprotocol/client\` 2.4): the same calls with the v2 client, in its 2025 mode (\`versionNegotiation:
  { mode: 'legacy' }\`: \`initialize\`, then 2025-11-25) direct, through the stdio byte relay and through mcp-offload, and pinned to
  2026-07-28 (\`{ pin: '2026-07-28' }\`: no \`initialize\`, the per-request \`_meta\` envelope) through mcp-offload, which bridges it to
  the 2025 server; the same over HTTP (server-everything's own Streamable HTTP in the 2025 mode, and \`mcp-offload --http\`). A
  2026-07-28 client cannot reach server-everything without a proxy that bridges the eras, so its reference is the same client's
  2025 mode direct.
- **SDK v2 client before a 2026-07-28 server**: the v2 client pinned to 2026-07-28 calls \`echo {text}\` of the SDK v2 fixture
  server (\`node test/fixtures/modern-server.mjs\`, \`McpServer\` on \`serveStdio\`; every answer checked: \`echo: hello <i>\`) directly,
  through the stdio byte relay, and through mcp-offload, which speaks 2026-07-28 to it too; and the same over HTTP: the
  fixture's own Streamable HTTP (\`--http <port>\`, \`createMcpHandler\`), a TCP byte relay before it, and \`mcp-offload
  --http --url\` before it (\`bench/lib/http-front.mjs --server modern\`).
- **steady state**: stdio direct, relay and mcp-offload, and the direct, TCP relay and mcp-offload fronts over HTTP once more, each after
  5000 warm-up calls (\`BENCH_SMALL_CALLS_STEADY_WARMUP\`) instead of ${WARMUP}: a fresh Node process runs its hot code interpreted until
  V8 has optimized it, which takes the proxy (and the server, and the client) a few thousand calls; a proxy lives as long as its
  client's session.

HTTP clients use the SDK's \`StreamableHTTPClientTransport\` (Node's fetch, keep-alive). It passes one long-lived \`AbortSignal\` to every
request and \`abort\` listeners pile up on it, so after some 1500 calls in a session the *client* prints \`MaxListenersExceededWarning\`s
(seen with every HTTP server here): a client-side cost that every HTTP mode pays alike. Each run is a fresh worker process
(bench/lib/latency-worker.mjs) that starts the server or proxy, connects (initialize), makes ${WARMUP} warm-up calls (not recorded), then
**sequential**: N calls one after the other, then **concurrent**: N calls with 16 in flight at any time (a new call starts when one
resolves). N = 2000 (\`BENCH_SMALL_CALLS\`). Runs of the modes alternate (run 1 of every mode, then run 2, ...).

- **median, p99, mean**: of every call's latency (\`performance.now()\` from \`client.callTool()\` to its resolved promise), pooled over the
  runs (runs × N calls); p99 by nearest rank. **run medians**: the median of each run on its own, to show the spread between runs.
- **throughput**: calls ÷ the phase's wall time (first call to last answer), median of the runs.
- **added median / added p99**: the mode's median (p99) minus the direct mode's of the same transport and phase (stdio: direct stdio;
  HTTP: server-everything's own HTTP). **added / direct**: added median as a percentage of the direct median.
- **proxy/server CPU per call**: user + system CPU time of the process the client talks to (server-everything, mcp-offload or
  mcp-proxy, not counting its upstream) during the phase, from /proc/<pid>/stat (10 ms ticks), ÷ calls; median of the runs.
  The client, the proxy and the server share the machine's 2 cores, so CPU spent anywhere shows in the latencies.
- **proxy/server RSS**: peak RSS (VmHWM) of that process, median of the runs.`,

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
    const lines = ['Goals of the performance issue (shown, not asserted):', ''];
    for (const g of goals(rows)) lines.push(`- ${g.goal}: ${g.measured} — **${met(g.met)}**`);
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

  summary: (rows) => goals(rows),
};
