// The official conformance suite's authorization client scenarios, from both pinned releases (0.1.16 and
// 0.2.0-alpha.12), each run twice by test/fixtures/conformance-client.mjs: the SDK client alone (an in-memory
// OAuthClientProvider whose "browser" takes the code from the suite's auto-approving authorization server), and the
// proxy as the client (`mcp-offload login` with test/fixtures/oauth-browser.mjs as $BROWSER, then the proxy on that
// config with a client without any OAuth behind it; when the proxy says a login is needed, the driver logs in again,
// as its user would). Every check the SDK client passes, the proxy passes; the scenarios the SDK client does not pass
// are listed with the reason, and there the proxy fails no check the SDK client passes.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliEnv, leftovers, REPO_ROOT, stopAllCli } from '../helpers/cli.js';
import { NODE } from '../helpers/fixtures.js';

const CONFORMANCE_DIR = join(REPO_ROOT, 'test', 'conformance');
const NODE_22 = join(CONFORMANCE_DIR, 'node_modules', 'node', 'bin', 'node');
const SUITE_STABLE = join(CONFORMANCE_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SUITE_NEXT = join(CONFORMANCE_DIR, 'node_modules', 'conformance-next', 'dist', 'index.js');
const DRIVER = join(REPO_ROOT, 'test', 'fixtures', 'conformance-client.mjs');

const MACHINE_GRANT =
  'a machine-to-machine grant (client credentials, JWT bearer): neither the driver nor the proxy configures one; the proxy logs in as a user';
const CROSS_APP =
  'Cross-App Access / enterprise-managed authorization (ID-JAG token exchange with an identity provider)';
const DPOP = 'DPoP-bound tokens (SEP-1932): the proxy keeps no DPoP key with its registration';

interface Suite {
  version: string;
  entry: string;
  /** Every auth scenario the release lists, so that one it adds is noticed. */
  scenarios: string[];
  /** Scenarios the SDK client alone fails, with the reason. */
  sdkFails: Record<string, string>;
}

/** The authorization scenarios both releases have. */
const IN_BOTH = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
];

const SUITES: Suite[] = [
  {
    version: '0.1.16',
    entry: SUITE_STABLE,
    scenarios: [
      ...IN_BOTH,
      'auth/client-credentials-jwt',
      'auth/client-credentials-basic',
      'auth/cross-app-access-complete-flow',
    ],
    sdkFails: {
      'auth/2025-03-26-oauth-metadata-backcompat':
        "the mock serves its authorization server metadata at the root with the issuer <origin>/oauth, an RFC 8414 §3.3 mismatch SDK 2.4 refuses (as does the proxy, and its login says why); the suite's fix of the mock (conformance #359) is in 0.2, where the scenario passes both ways",
      'auth/client-credentials-jwt': MACHINE_GRANT,
      'auth/client-credentials-basic': MACHINE_GRANT,
      'auth/cross-app-access-complete-flow': CROSS_APP,
    },
  },
  {
    version: '0.2.0-alpha.12',
    entry: SUITE_NEXT,
    scenarios: [
      ...IN_BOTH,
      'auth/authorization-server-migration',
      'auth/iss-supported',
      'auth/iss-not-advertised',
      'auth/iss-supported-missing',
      'auth/iss-wrong-issuer',
      'auth/iss-unexpected',
      'auth/iss-normalized',
      'auth/metadata-issuer-mismatch',
      'auth/client-credentials-jwt',
      'auth/client-credentials-basic',
      'auth/enterprise-managed-authorization',
      'auth/dpop',
      'auth/dpop-nonce',
      'auth/wif-jwt-bearer',
    ],
    sdkFails: {
      'auth/client-credentials-jwt': MACHINE_GRANT,
      'auth/client-credentials-basic': MACHINE_GRANT,
      'auth/enterprise-managed-authorization': CROSS_APP,
      'auth/dpop': DPOP,
      'auth/dpop-nonce': DPOP,
      'auth/wif-jwt-bearer': MACHINE_GRANT,
    },
  },
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description?: string;
  errorMessage?: string;
}

const work = mkdtempSync(join(tmpdir(), 'mcp-offload-conformance-auth-'));
const children = new Set<ChildProcess>();

/** How the driver runs a scenario: the SDK client alone, through the proxy, or the proxy before any login. */
type Mode = 'direct' | 'proxy' | 'no-login';
const DRIVER_FLAGS: Record<Mode, string[]> = {
  direct: [],
  proxy: ['--via-proxy'],
  'no-login': ['--via-proxy', '--no-login'],
};

/** One scenario run: its checks (undefined when the suite wrote none). */
async function runScenario(
  suite: Suite,
  scenario: string,
  mode: Mode,
  flags: string[] = [],
): Promise<Check[] | undefined> {
  const outDir = join(work, `${suite.version}-${mode}${flags.join('')}-${scenario.replace(/\W+/g, '-')}`);
  const command = [NODE, DRIVER, ...DRIVER_FLAGS[mode], ...flags].join(' ');
  const child = spawn(NODE_22, [suite.entry, 'client', '--command', command, '--scenario', scenario, '-o', outDir], {
    cwd: REPO_ROOT,
    env: cliEnv(),
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  children.add(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${suite.version} ${scenario} still ran after 2 minutes`));
    }, 120_000);
    child.once('close', () => {
      clearTimeout(timer);
      children.delete(child);
      resolve();
    });
  });
  // The suite writes <out>/<scenario>-<timestamp>/checks.json; the scenario's "auth/" is a directory level.
  const [group, name] = scenario.split('/') as [string, string];
  const dir = join(outDir, group);
  const entry = existsSync(dir) ? readdirSync(dir).find((e) => e.startsWith(`${name}-`)) : undefined;
  const file = entry === undefined ? undefined : join(dir, entry, 'checks.json');
  return file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Check[]) : undefined;
}

function failuresOf(checks: Check[]): string[] {
  return checks.filter((c) => c.status === 'FAILURE').map((c) => c.id);
}

/** Check ids with their outcome, the worst when an id occurs more than once (INFO is narration). */
function outcomes(checks: Check[]): Map<string, Check['status']> {
  const rank: Record<Check['status'], number> = { FAILURE: 0, WARNING: 1, SKIPPED: 2, SUCCESS: 3, INFO: 4 };
  const out = new Map<string, Check['status']>();
  for (const check of checks) {
    if (check.status === 'INFO') continue;
    const seen = out.get(check.id);
    if (seen === undefined || rank[check.status] < rank[seen]) out.set(check.id, check.status);
  }
  return out;
}

/** The checks the SDK client passed (or only warned on) that the proxy ends worse. */
function worseThroughProxy(direct: Check[], proxied: Check[]): string[] {
  const rank: Record<string, number> = { FAILURE: 0, WARNING: 1, SKIPPED: 2, SUCCESS: 3 };
  const through = outcomes(proxied);
  const worse: string[] = [];
  for (const [id, status] of outcomes(direct)) {
    if (status === 'FAILURE') continue;
    const got = through.get(id);
    if (got === undefined || rank[got]! < rank[status]!)
      worse.push(`${id}: ${status} direct, ${got ?? 'absent'} through the proxy`);
  }
  return worse;
}

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe.each(SUITES)('conformance suite $version, auth client scenarios', (suite) => {
  const runs = new Map<string, { direct?: Check[]; proxied?: Check[] }>();

  beforeAll(async () => {
    for (const scenario of suite.scenarios) {
      runs.set(scenario, {
        direct: await runScenario(suite, scenario, 'direct'),
        proxied: await runScenario(suite, scenario, 'proxy'),
      });
    }
  }, 1_200_000);

  test('the listed scenarios are every auth scenario the release has', async () => {
    const { stdout } = await promisify(execFile)(NODE_22, [suite.entry, 'list']);
    const listed = [...stdout.matchAll(/^\s+- (auth\/\S+)/gm)].map((m) => m[1]!);
    expect(listed.sort()).toEqual([...suite.scenarios].sort());
  });

  const passing = suite.scenarios.filter((s) => suite.sdkFails[s] === undefined);
  const failing = suite.scenarios.filter((s) => suite.sdkFails[s] !== undefined);

  test.each(passing)('%s: passes with the SDK client alone and through the proxy', (scenario) => {
    const { direct, proxied } = runs.get(scenario)!;
    expect(direct).toBeDefined();
    expect(proxied).toBeDefined();
    expect({ scenario, direct: failuresOf(direct!), proxied: failuresOf(proxied!) }).toEqual({
      scenario,
      direct: [],
      proxied: [],
    });
    expect({ scenario, worse: worseThroughProxy(direct!, proxied!) }).toEqual({ scenario, worse: [] });
  });

  if (failing.length > 0) {
    test.each(failing.map((s) => [s, suite.sdkFails[s]!]))(
      '%s: the SDK client alone fails (%s); the proxy fails nothing it passes',
      (scenario) => {
        const { direct, proxied } = runs.get(scenario)!;
        expect(direct).toBeDefined();
        expect(proxied).toBeDefined();
        expect(failuresOf(direct!).length).toBeGreaterThan(0);
        expect({ scenario, worse: worseThroughProxy(direct!, proxied!) }).toEqual({ scenario, worse: [] });
      },
    );
  }
});

/**
 * The proxy before any login (the driver's --no-login): the mock's metadata documents, as the mock logged their
 * requests, each fetched once. The proxy finds out the server wants a login, says so and waits for the token file;
 * the earlier builds, restarting the upstream instead (these restart 50 ms apart), discovered the metadata again on
 * every attempt (ten times in eight seconds), and twice within one attempt when `initialize` followed a refused
 * `server/discover`.
 */
const WITHOUT_LOGIN: Array<{ version: string; scenario: string; protocol?: string; server: string }> = [
  { version: '0.2.0-alpha.12', scenario: 'auth/metadata-default', server: 'refuses every request until a login' },
  {
    version: '0.2.0-alpha.12',
    scenario: 'auth/scope-step-up',
    protocol: 'legacy',
    server: 'spoken to in the 2025 era: lets initialize through unauthorized, refuses the lists',
  },
  {
    version: '0.2.0-alpha.12',
    scenario: 'auth/metadata-issuer-mismatch',
    server: "names another issuer in its authorization server's metadata, which the SDK refuses (RFC 8414 §3.3)",
  },
  {
    version: '0.1.16',
    scenario: 'auth/2025-03-26-oauth-metadata-backcompat',
    server: 'the same, with no resource metadata and the authorization server at the MCP server (2025-03-26)',
  },
];

/** How often each /.well-known/ document was requested, from the mock's log of the requests it received. */
function metadataFetches(checks: Check[]): Record<string, number> {
  const fetches: Record<string, number> = {};
  for (const check of checks) {
    const path = /^Received GET request for (\/\.well-known\/\S+)/.exec(check.description ?? '')?.[1];
    if (path !== undefined) fetches[path] = (fetches[path] ?? 0) + 1;
  }
  return fetches;
}

describe('the proxy before any login', () => {
  test.each(WITHOUT_LOGIN)(
    '$version $scenario ($server): each metadata document is fetched once',
    async (run) => {
      const { version, scenario, protocol } = run;
      const suite = SUITES.find((s) => s.version === version)!;
      const checks = await runScenario(suite, scenario, 'no-login', protocol ? [`--protocol=${protocol}`] : []);
      expect(checks).toBeDefined();
      const fetches = metadataFetches(checks!);
      expect(Object.keys(fetches)).not.toEqual([]);
      expect({ scenario, fetches }).toEqual({
        scenario,
        fetches: Object.fromEntries(Object.keys(fetches).map((path) => [path, 1])),
      });
    },
    120_000,
  );
});
