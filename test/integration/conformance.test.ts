// The official MCP conformance suite (@modelcontextprotocol/conformance, its `server` command) run
// against a conformance fixture three ways: directly over Streamable HTTP, through the proxy
// with the fixture as its stdio upstream, and through the proxy with the direct fixture as its
// --url upstream. Two releases of the suite run: the last stable one (0.1.16) and the newest
// (0.2.0-alpha.12), the newest three times: at the 2025-11-25 wire against the v1 fixture, and at
// both wires against a port of the SDK's reference server (conformance-modern-server.mjs, which
// serves both eras). Through the proxy, in its default mode, every check must end as it does
// direct: the same successes, and no warning direct does not have.
//
// test/conformance/ pins both releases and a Node 22 (the `node` package, which .ci/run also puts first on PATH on
// a machine with an older Node); .ci/run installs it, and this file does when it is missing.
// cspell:ignore mrtr
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  cliEnv,
  installPinned,
  leftovers,
  REPO_ROOT,
  removeArtifactDir,
  startCli,
  stopAllCli,
} from '../helpers/cli.js';
import { NODE } from '../helpers/fixtures.js';

const CONFORMANCE_DIR = join(REPO_ROOT, 'test', 'conformance');
const NODE_22 = join(CONFORMANCE_DIR, 'node_modules', 'node', 'bin', 'node');
const SUITE_STABLE = join(CONFORMANCE_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SUITE_NEXT = join(CONFORMANCE_DIR, 'node_modules', 'conformance-next', 'dist', 'index.js');
const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'conformance-server.mjs');
const MODERN_FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'conformance-modern-server.mjs');
const CLIENT_DRIVER = join(REPO_ROOT, 'test', 'fixtures', 'conformance-client.mjs');

/**
 * Every server scenario of 0.1.16 (`--suite all`: the active ones and the two it calls pending,
 * json-schema-2020-12 and server-sse-polling). Listed here so that a scenario the run silently
 * skips, or one a new suite version adds, fails the test instead of passing unseen.
 */
const STABLE_SCENARIOS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
].sort();

/**
 * 0.2.0-alpha.12 with `--requirements 2025-11-25`: the 30 scenarios that revision requires, frozen at
 * its release, and three it runs without scoring (one added after the release, the two pending ones).
 */
const NEXT_SCENARIOS = [
  ...STABLE_SCENARIOS.filter((s) => s !== 'json-schema-2020-12' && s !== 'server-sse-polling'),
  'server-session-lifecycle',
  'json-schema-2020-12',
  'server-sse-polling',
].sort();

/**
 * 0.2.0-alpha.12 with `--requirements 2026-07-28`: the 37 server scenarios that revision requires
 * (frozen at its release), the three it runs as pending, and the ten of the tasks extension
 * (io.modelcontextprotocol/tasks) it runs without scoring.
 */
const MODERN_REQUIRED_SCENARIOS = [
  'server-stateless',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'server-sse-multiple-streams',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'sep-2164-resource-not-found',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
  'caching',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
];

const TASKS_EXTENSION_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

const MODERN_SCENARIOS = [
  ...MODERN_REQUIRED_SCENARIOS,
  'json-schema-2020-12',
  'http-header-validation',
  'http-custom-header-server-validation',
  ...TASKS_EXTENSION_SCENARIOS,
].sort();

/**
 * Why the direct run of the tasks scenarios fails: the SDK's server packages (2.4.0) have no
 * io.modelcontextprotocol/tasks extension, so the reference server neither advertises it nor has the
 * tools the scenarios call (slow_compute, greet, failing_job, ...); its expected-failures file covers
 * only the scored scenarios. The suite does not score them. tasks-status-notifications skips itself
 * when the extension is not advertised, so it has no failure to expect.
 */
const NO_TASKS_EXTENSION = 'the SDK (2.4.0) does not implement the io.modelcontextprotocol/tasks extension';
const MODERN_EXPECTED_FAILURES: Record<string, string> = Object.fromEntries(
  TASKS_EXTENSION_SCENARIOS.filter((s) => s !== 'tasks-status-notifications').map((s) => [s, NO_TASKS_EXTENSION]),
);

interface Suite {
  /** How the test names it: the suite's version, and the wire when one release runs at two. */
  version: string;
  entry: string;
  /** The server it runs against, direct and as the proxy's upstream. */
  fixture: string;
  /** Which scenarios to run, at which wire. */
  select: string[];
  scenarios: string[];
  /**
   * The suite's "should"s (warnings) a direct run may miss, by scenario: none, but for one probe of
   * 0.1.16 that the SDK's transport answers as the spec says rather than as the suite hopes. Its
   * server-sse-polling sends its tools/call with `mcp-protocol-version: 2025-03-26` on a session that
   * negotiated 2025-11-25, and the SDK (1.32 and 2.4 alike) sends a priming event, and the retry field
   * with it, only to clients of 2025-11-25 and later: older ones cannot read an event without data. The
   * newer suite sends the negotiated version and gets both (test/integration/http-resume.test.ts
   * checks them too).
   */
  expectedWarnings: Record<string, string[]>;
  /** Scenarios that fail direct, each with the reason (checked, so that one that starts passing is noticed). */
  expectedFailures?: Record<string, string>;
}

const SUITES: Suite[] = [
  {
    version: '0.1.16',
    entry: SUITE_STABLE,
    fixture: FIXTURE,
    select: ['--suite', 'all'],
    scenarios: STABLE_SCENARIOS,
    expectedWarnings: { 'server-sse-polling': ['server-sse-priming-event', 'server-sse-retry-field'] },
  },
  {
    version: '0.2.0-alpha.12',
    entry: SUITE_NEXT,
    fixture: FIXTURE,
    select: ['--requirements', '2025-11-25'],
    scenarios: NEXT_SCENARIOS,
    expectedWarnings: {},
  },
  {
    // The legacy half of a server that speaks both eras: a 2025 client in front of it through the
    // proxy must get what it gets direct, whichever era the proxy speaks upstream (the reference
    // server's sampling and elicitation tools send real server→client requests, which only a 2025
    // request can carry).
    version: '0.2.0-alpha.12 at 2025-11-25, a server of both eras',
    entry: SUITE_NEXT,
    fixture: MODERN_FIXTURE,
    select: ['--requirements', '2025-11-25'],
    scenarios: NEXT_SCENARIOS,
    expectedWarnings: {},
  },
  {
    version: '0.2.0-alpha.12 at 2026-07-28',
    entry: SUITE_NEXT,
    fixture: MODERN_FIXTURE,
    select: ['--requirements', '2026-07-28'],
    scenarios: MODERN_SCENARIOS,
    expectedWarnings: {},
    expectedFailures: MODERN_EXPECTED_FAILURES,
  },
];

/** One check as the suite writes it to <output dir>/server-<scenario>-<timestamp>/checks.json. */
interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description?: string;
  errorMessage?: string;
}

/** What one run of the suite found: the checks of each scenario it ran, and its own output. */
interface SuiteRun {
  scenarios: Map<string, Check[]>;
  output: string;
}

/** A scenario passes when none of its checks failed (warnings are the suite's "should"s). */
function failuresOf(checks: Check[]): string[] {
  return checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
}

const work = mkdtempSync(join(tmpdir(), 'mcp-offload-conformance-'));
const children = new Set<ChildProcess>();

/** Spawns with the helpers' environment (so leftovers() sees it) and remembers it for afterAll. */
function spawnTracked(command: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { cwd: REPO_ROOT, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (output += s));
  children.add(child);
  child.once('close', () => children.delete(child));
  return { child, output: () => output };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('close', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Installs test/conformance from its lock file when this checkout does not have it yet. */
async function ensureSuiteInstalled(): Promise<void> {
  await installPinned(CONFORMANCE_DIR, [NODE_22, ...SUITES.map((suite) => suite.entry)]);
  const { stdout } = await promisify(execFile)(NODE_22, ['--version']);
  expect(Number(/^v(\d+)\./.exec(stdout)?.[1])).toBeGreaterThanOrEqual(22);
}

/** Starts a fixture on an HTTP port of its choosing and resolves with its endpoint. */
async function startDirect(fixture: string): Promise<string> {
  const { child, output } = spawnTracked(NODE, [fixture, '--http', '0']);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fixture did not start within 15 s:\n${output()}`)), 15_000);
    const check = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output());
      if (!m) return;
      clearTimeout(timer);
      resolve(m[1]!);
    };
    child.stderr!.on('data', check);
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`fixture exited with code ${code}:\n${output()}`));
    });
  });
}

/** Starts the proxy over HTTP in its default mode and resolves with its endpoint. */
async function startProxy(upstream: string[]): Promise<string> {
  const artifacts = mkdtempSync(join(work, 'artifacts-'));
  const cli = startCli(['--http', '127.0.0.1:0', '--artifact-dir', artifacts, ...upstream]);
  const [, url] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
  return url!;
}

/** Runs every scenario of the suite against `url`, one after the other, and reads their checks. */
async function runSuite(suite: Suite, label: string, url: string): Promise<SuiteRun> {
  const outDir = join(work, `${suite.version.replace(/\W+/g, '-')}-${label}`);
  const { child, output } = spawnTracked(NODE_22, [suite.entry, 'server', '--url', url, ...suite.select, '-o', outDir]);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`suite ${suite.version} still ran against ${label} after 4 minutes:\n${output().slice(-4000)}`));
    }, 240_000);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  // Its exit code only says whether something failed; the per-scenario checks say what.
  const scenarios = new Map<string, Check[]>();
  for (const entry of existsSync(outDir) ? readdirSync(outDir) : []) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = join(outDir, entry, 'checks.json');
    if (m && existsSync(file)) scenarios.set(m[1]!, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
  }
  return { scenarios, output: output() };
}

/** The ids of a scenario's checks that warned, in order. */
function warningsOf(checks: Check[]): string[] {
  return checks.filter((c) => c.status === 'WARNING').map((c) => c.id);
}

/** The scenario names a run reported, or a failure naming the run's output when they differ from the suite's list. */
function expectEveryScenario(suite: Suite, run: SuiteRun): void {
  const ran = [...run.scenarios.keys()].sort();
  if (ran.join() !== suite.scenarios.join()) {
    throw new Error(
      `expected suite ${suite.version} to report exactly the listed scenarios\n` +
        `  missing: ${suite.scenarios.filter((s) => !run.scenarios.has(s)).join(', ') || '-'}\n` +
        `  unexpected: ${ran.filter((s) => !suite.scenarios.includes(s)).join(', ') || '-'}\n` +
        `suite output (tail):\n${run.output.slice(-4000)}`,
    );
  }
}

/**
 * How each scored check ended, by id (INFO lines are the suite's narration and may differ with timing;
 * a check id that occurs twice keeps its worst outcome).
 */
const RANK: Record<Check['status'], number> = { FAILURE: 0, WARNING: 1, SKIPPED: 2, SUCCESS: 3, INFO: 4 };

/**
 * What a run through the proxy must end with, given the direct run's outcomes: every check direct reports, each at
 * least as good (a check the proxy passes where the server alone only warns is no regression), and any check direct
 * left as information that the proxy passes (0.1.16's server-sse-polling asks with an older version header, so the
 * server sends it no priming event and its resumption is not scored direct; the proxy primes by the negotiated one).
 */
function noWorseThan(direct: Record<string, Check['status']>, proxied: Record<string, Check['status']>) {
  const expected: Record<string, Check['status']> = {};
  for (const [id, status] of Object.entries(direct)) {
    const got = proxied[id];
    expected[id] = got !== undefined && RANK[got] >= RANK[status] ? got : status;
  }
  for (const [id, got] of Object.entries(proxied)) if (!(id in direct) && got === 'SUCCESS') expected[id] = got;
  return expected;
}

function outcomes(checks: Check[]): Record<string, Check['status']> {
  const rank = RANK;
  const out: Record<string, Check['status']> = {};
  for (const check of checks) {
    if (check.status === 'INFO') continue;
    const seen = out[check.id];
    if (seen === undefined || rank[check.status] < rank[seen]) out[check.id] = check.status;
  }
  return out;
}

/**
 * Checks a direct run exercises and the proxy, with a stdio upstream, cannot. server-sse-polling's disconnect-resume
 * check succeeds when the server closes a call's SSE stream mid-call (SEP-1699 polling, the server's choice) and the
 * client resumes. Over HTTP the proxy does what its upstream does: it ends the client's stream when the upstream ends
 * its own, and the client resumes from the event store (checked below). A stdio upstream has no stream to end, and the
 * proxy keeps a call's stream open until its result (docs/sidecar.md, "Resumable streams"), so the suite records that
 * check as information; the proxy's resumption of a broken stream is tested in http-resume.test.ts.
 */
const STDIO_UPSTREAM_DOES_NOT_EXERCISE: Record<string, string[]> = {
  'server-sse-polling': ['server-sse-disconnect-resume'],
};

/** Each fixture's direct endpoint, by path; one process serves every suite that runs against it. */
const directUrls = new Map<string, string>();

beforeAll(async () => {
  await ensureSuiteInstalled();
  for (const fixture of new Set(SUITES.map((suite) => suite.fixture)))
    directUrls.set(fixture, await startDirect(fixture));
}, 360_000);

afterAll(async () => {
  await Promise.all([...children].map(stop));
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  removeArtifactDir();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

const PROXIED: Array<[string, (fixture: string) => string[]]> = [
  ['through the proxy, stdio upstream', (fixture) => ['--', NODE, fixture, '--stdio']],
  ['through the proxy, HTTP upstream', (fixture) => ['--url', directUrls.get(fixture)!]],
];

describe.each(SUITES)('MCP conformance suite $version', (suite) => {
  let direct: SuiteRun | undefined;

  describe('direct (the fixture over Streamable HTTP)', () => {
    beforeAll(async () => {
      direct = await runSuite(suite, 'direct', directUrls.get(suite.fixture)!);
    }, 300_000);

    test('reports every listed scenario', () => {
      expectEveryScenario(suite, direct!);
    });

    const expectedFailures = suite.expectedFailures ?? {};
    const passing = suite.scenarios.filter((s) => expectedFailures[s] === undefined);
    const failing = suite.scenarios.filter((s) => expectedFailures[s] !== undefined);

    test.each(passing)('%s passes', (scenario) => {
      const checks = direct!.scenarios.get(scenario);
      expect(checks).toBeDefined();
      expect({ scenario, failures: failuresOf(checks!) }).toEqual({ scenario, failures: [] });
    });

    if (failing.length > 0) {
      test.each(failing.map((s) => [s, expectedFailures[s]!]))('%s fails as expected: %s', (scenario) => {
        const checks = direct!.scenarios.get(scenario);
        expect(checks).toBeDefined();
        expect(failuresOf(checks!).length).toBeGreaterThan(0);
      });
    }

    test.each(suite.scenarios)('%s warns of nothing the SDK does not do by design', (scenario) => {
      const checks = direct!.scenarios.get(scenario);
      expect({ scenario, warnings: warningsOf(checks!) }).toEqual({
        scenario,
        warnings: suite.expectedWarnings[scenario] ?? [],
      });
    });
  });

  describe.each(PROXIED)('%s', (label, upstream) => {
    let proxied: SuiteRun | undefined;

    beforeAll(async () => {
      const url = await startProxy(upstream(suite.fixture));
      proxied = await runSuite(suite, label.replace(/\W+/g, '-'), url);
    }, 300_000);

    test('reports every listed scenario', () => {
      expectEveryScenario(suite, proxied!);
    });

    // Default mode ends every check at least as well as direct does: each scenario named, with its checks' outcomes.
    test.each(suite.scenarios)('%s ends as it does direct', (scenario) => {
      const directChecks = direct?.scenarios.get(scenario);
      const checks = proxied!.scenarios.get(scenario);
      expect(directChecks).toBeDefined();
      expect(checks).toBeDefined();
      const directOutcomes = outcomes(directChecks!);
      if (label.includes('stdio'))
        for (const id of STDIO_UPSTREAM_DOES_NOT_EXERCISE[scenario] ?? []) delete directOutcomes[id];
      const got = outcomes(checks!);
      expect({ scenario, outcomes: got }).toEqual({ scenario, outcomes: noWorseThan(directOutcomes, got) });
    });
  });
});

/**
 * The client scenarios 0.2.0-alpha.12 requires at 2026-07-28 but for authorization (conformance-auth.test.ts runs
 * those of both releases), and the one it runs without scoring it (added after the release).
 */
const CLIENT_SCENARIOS = [
  'tools_call',
  'request-metadata',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
].sort();

/**
 * What one scenario run of the suite's `client` command found, and how the command exited (0: no
 * failed check, no warning, and the client itself exited 0).
 */
interface ClientRun {
  checks: Check[] | undefined;
  exitCode: number | null;
  output: string;
}

/** Runs one client scenario with the driver (`--via-proxy` puts the proxy between it and the mock). */
async function runClientScenario(scenario: string, viaProxy: boolean): Promise<ClientRun> {
  const outDir = join(work, `client-${viaProxy ? 'proxy' : 'direct'}-${scenario}`);
  const command = [NODE, CLIENT_DRIVER, ...(viaProxy ? ['--via-proxy'] : [])].join(' ');
  const { child, output } = spawnTracked(NODE_22, [
    SUITE_NEXT,
    'client',
    '--command',
    command,
    '--scenario',
    scenario,
    '--spec-version',
    '2026-07-28',
    '-o',
    outDir,
  ]);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`client scenario ${scenario} still ran after 2 minutes:\n${output().slice(-4000)}`));
    }, 120_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const entry = (existsSync(outDir) ? readdirSync(outDir) : []).find((e) => e.startsWith(`${scenario}-`));
  const file = entry === undefined ? undefined : join(outDir, entry, 'checks.json');
  const checks = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Check[]) : undefined;
  return { checks, exitCode, output: output() };
}

describe('MCP conformance suite 0.2.0-alpha.12 client scenarios at 2026-07-28', () => {
  test('the listed scenarios are every non-authorization client scenario the revision requires', async () => {
    const { stdout } = await promisify(execFile)(NODE_22, [SUITE_NEXT, 'list', '--requirements', '2026-07-28']);
    const clientSection = stdout.slice(stdout.indexOf('Client scenarios'), stdout.indexOf('Run and reported'));
    const required = [...clientSection.matchAll(/^\s+- (\S+)$/gm)]
      .map((m) => m[1]!)
      .filter((s) => !s.startsWith('auth/'));
    const notScored = [...stdout.slice(stdout.indexOf('Run and reported')).matchAll(/^\s+- (\S+) \[client\]$/gm)]
      .map((m) => m[1]!)
      .filter((s) => !s.startsWith('auth/') && !s.startsWith('sep-2640-'));
    expect([...required, ...notScored].sort()).toEqual(CLIENT_SCENARIOS);
  });

  const direct = new Map<string, ClientRun>();

  describe('the driver client against the mock (no proxy)', () => {
    beforeAll(async () => {
      for (const scenario of CLIENT_SCENARIOS) direct.set(scenario, await runClientScenario(scenario, false));
    }, 600_000);

    test.each(CLIENT_SCENARIOS)('%s passes with no warning', (scenario) => {
      const run = direct.get(scenario)!;
      expect(run.checks).toBeDefined();
      expect({ scenario, failures: failuresOf(run.checks!), warnings: warningsOf(run.checks!) }).toEqual({
        scenario,
        failures: [],
        warnings: [],
      });
      expect({ scenario, exitCode: run.exitCode }).toEqual({ scenario, exitCode: 0 });
    });
  });

  describe('the proxy as the client (the driver behind it)', () => {
    const proxied = new Map<string, ClientRun>();

    beforeAll(async () => {
      for (const scenario of CLIENT_SCENARIOS) proxied.set(scenario, await runClientScenario(scenario, true));
    }, 900_000);

    test.each(CLIENT_SCENARIOS)('%s ends as it does direct', (scenario) => {
      const directRun = direct.get(scenario);
      const run = proxied.get(scenario)!;
      expect(directRun?.checks).toBeDefined();
      if (run.checks === undefined)
        throw new Error(`no checks for ${scenario}; suite output:\n${run.output.slice(-4000)}`);
      const got = outcomes(run.checks);
      expect({ scenario, outcomes: got }).toEqual({
        scenario,
        outcomes: noWorseThan(outcomes(directRun!.checks!), got),
      });
      expect({ scenario, exitCode: run.exitCode }).toEqual({ scenario, exitCode: directRun!.exitCode });
    });
  });
});
