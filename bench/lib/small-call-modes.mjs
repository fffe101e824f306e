// The modes of the small-calls group (bench/scenarios/small-calls.mjs): what the client talks to, and which
// mode's latency each one's "added" is measured from (`baseline`). `transport` names the table section; modes of
// one section share their baseline. A mode's job is the latency-worker job (bench/lib/latency-worker.mjs) that
// starts it; `calls` overrides the echo call for servers whose echo differs. Modes of one `together` key (a section,
// fresh or steady) are timed in turns by one worker (echo-calls.mjs collect), so that the machine's drift over a run
// slows them alike: on this 2-core VM the HTTP modes' run medians moved by up to 1.4 ms between runs, more than a
// goal's margin.
import { EVERYTHING, httpFrontJob } from './echo-calls.mjs';
import { peerPath } from './peers.mjs';

const NODE = process.execPath;
/** A bare byte relay (no parsing): the least a second process in the stdio path can cost. */
const RELAY = 'bench/lib/stdio-relay.mjs';
const JSON_RELAY = 'bench/lib/stdio-json-relay.mjs';
const OFFLOAD = (tmp) => ['dist/cli.js', '--log-level', 'warn', '--artifact-dir', tmp];
/** server-everything's own Streamable HTTP with `front` before it. */
const urlFront = (front) => () => httpFrontJob(front);

export const MODES = [
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
  {
    id: 'url-relay',
    transport: 'url',
    mode: 'TCP byte relay (floor)',
    baseline: 'url-direct',
    job: urlFront('relay'),
  },
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

// A 2026-07-28 client before a 2026-07-28 server: the SDK v2 fixture server (test/fixtures/modern-server.mjs, whose
// `echo` takes `text`), direct, behind the byte relay and behind mcp-offload, the client pinned to 2026-07-28; over
// HTTP also behind the minimal HTTP proxy, the floor the relay-core issue's (#32) HTTP goal is stated against.
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
    id: 'v2m-stdio-json-relay',
    transport: 'v2m-stdio',
    mode: 'stdio-json-relay (floor for a proxy that reads messages)',
    baseline: 'v2m-stdio-direct',
    calls: modernEcho,
    job: () => ({
      transport: 'stdio',
      client: 'v2-modern',
      spawn: { command: NODE, args: [JSON_RELAY, '--stringify', '--', NODE, MODERN_SERVER] },
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
    ['http-relay', 'minimal HTTP proxy (floor for a proxy that reads HTTP)'],
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

// The modes of the relay-core issue's (#32) goals once more in the steady state, after BENCH_SMALL_CALLS_STEADY_WARMUP
// warm-up calls: stdio for a 2025 client and for a 2026-07-28 one (before a 2026-07-28 server), and HTTP in front of a
// Streamable HTTP server, each with its floors.
const STEADY = [
  ...['stdio-direct', 'stdio-relay', 'stdio-json-relay', 'stdio-mcp-offload'],
  ...['v2m-stdio-direct', 'v2m-stdio-relay', 'v2m-stdio-json-relay', 'v2m-stdio-mcp-offload'],
  ...['url-direct', 'url-relay', 'url-http-relay', 'url-mcp-offload'],
];
for (const id of STEADY) {
  const mode = MODES.find((m) => m.id === id);
  MODES.push({
    ...mode,
    id: `${id}-steady`,
    steady: true,
    ...(mode.baseline ? { baseline: `${mode.baseline}-steady` } : {}),
  });
}

// Every section's modes (fresh or steady) take their calls in turns, in one worker: whole runs alternated, the stdio
// sections' ratios moved as much as the HTTP ones' (a 2026-07-28 client fresh 1.76x at 41fb19c, 6.08x at a3ecaa4,
// where the byte relay's added median was +0.066 ms).
for (const mode of MODES) mode.together = mode.steady ? `${mode.transport}-steady` : mode.transport;

export function modesFromEnv(env) {
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

export const PHASES = ['sequential', 'concurrent'];
export const TRANSPORT_LABELS = {
  stdio: 'stdio',
  http: 'Streamable HTTP',
  url: 'Streamable HTTP to a Streamable HTTP server',
  'v2-stdio': 'stdio, SDK v2 client',
  'v2-http': 'Streamable HTTP, SDK v2 client',
  'v2m-stdio': 'stdio, SDK v2 client pinned to 2026-07-28, a 2026-07-28 server',
  'v2m-url': 'Streamable HTTP, SDK v2 client pinned to 2026-07-28, a 2026-07-28 Streamable HTTP server',
};
/** Table sections: each transport fresh, then the steady-state measurements. */
export const TABLE_ORDER = [
  ['stdio', false],
  ['http', false],
  ['url', false],
  ['v2-stdio', false],
  ['v2-http', false],
  ['v2m-stdio', false],
  ['v2m-url', false],
  ['stdio', true],
  ['v2m-stdio', true],
  ['url', true],
];
