// A remote upstream behind OAuth, with real parts: oidc-provider as the authorization server and an MCP server that
// takes only its JWT access tokens (test/fixtures/oauth-servers.mjs, under the Node 22 of test/conformance, which
// oidc-provider needs), the built CLI as proxy and as `mcp-offload login`, and test/fixtures/oauth-browser.mjs as
// the user's browser ($BROWSER), following the redirects back to the login's loopback callback.
//
// One proxy lives through the first tests, as a user's would: it starts before any login (the server needs one),
// picks up the login written meanwhile, refreshes an expired token on its own, and falls back to "needs login" when
// the refresh token is revoked.
// cspell:ignore jwks
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cliEnv,
  connectLinear,
  leftovers,
  REPO_ROOT,
  startCli,
  stopAllCli,
  type LinearConnection,
} from '../helpers/cli.js';
import { NODE, waitFor } from '../helpers/fixtures.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const NODE_22 = join(REPO_ROOT, 'test', 'conformance', 'node_modules', 'node', 'bin', 'node');
const SERVERS = join(REPO_ROOT, 'test', 'fixtures', 'oauth-servers.mjs');
const BROWSER = `${NODE} ${join(REPO_ROOT, 'test', 'fixtures', 'oauth-browser.mjs')}`;
/** Access tokens live this many seconds: long enough for a login, short enough to wait for one to expire. */
const ACCESS_TOKEN_TTL = 4;

interface OAuthServers {
  issuer: string;
  mcp: string;
  child: ChildProcess;
  /** Requests that reached the MCP server's /mcp, by "<method> <status>". */
  requests(): Promise<Record<string, number>>;
}

async function startOAuthServers(): Promise<OAuthServers> {
  const child = spawn(NODE_22, [SERVERS], {
    env: cliEnv({ OAUTH_ACCESS_TOKEN_TTL: String(ACCESS_TOKEN_TTL) }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (output += s));
  const { issuer, mcp } = await new Promise<{ issuer: string; mcp: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`oauth-servers did not start:\n${output}`)), 20_000);
    child.stderr!.on('data', () => {
      const issuer = /^issuer (\S+)$/m.exec(output)?.[1];
      const mcp = /^mcp (\S+)$/m.exec(output)?.[1];
      if (issuer && mcp) {
        clearTimeout(timer);
        resolve({ issuer, mcp });
      }
    });
    child.once('exit', (code) => reject(new Error(`oauth-servers exited (${code}):\n${output}`)));
  });
  const requests = async () =>
    (await (await fetch(mcp.replace(/\/mcp$/, '/test/requests'))).json()) as Record<string, number>;
  return { issuer, mcp, child, requests };
}

const work = mkdtempSync(join(tmpdir(), 'mcp-offload-oauth-'));
/** The user's config directory: default token files go to <it>/mcp-offload/oauth/. */
const xdg = join(work, 'xdg');
const ENV = { XDG_CONFIG_HOME: xdg };
const TOKEN_DIR = join(xdg, 'mcp-offload', 'oauth');
let servers: OAuthServers;

function writeConfig(name: string, server: Record<string, unknown>): string {
  const file = join(work, `${name}.yaml`);
  // Restarts would come fast: a server retried on a 401 would show it in the request counts at once.
  writeFileSync(file, JSON.stringify({ servers: { protected: { restart: { initialDelayMs: 50 }, ...server } } }));
  return file;
}

/** Runs `mcp-offload <args>` (login, logout) with the test browser; resolves with its exit code and stderr. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const run = startCli(args, { ...ENV, BROWSER, ...env });
  run.child.stdin!.end();
  const { code } = await run.exit(60_000);
  return { code, stderr: run.stderr() };
}

interface TokenFile {
  url?: string;
  tokens?: { access_token: string; refresh_token?: string };
  client?: { client_id: string };
}

function readTokens(file: string): TokenFile {
  return JSON.parse(readFileSync(file, 'utf8')) as TokenFile;
}

/** The one default token file a login wrote. */
function defaultTokenFile(): string {
  const files = readdirSync(TOKEN_DIR).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return join(TOKEN_DIR, files[0]!);
}

/** Waits until the access token in `file` has expired (its `exp`, read from the JWT). */
async function untilExpired(file: string): Promise<void> {
  const jwt = readTokens(file).tokens!.access_token;
  const { exp } = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number };
  const wait = exp * 1000 + 1000 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

async function callWhoami(connection: LinearConnection, name = 'whoami'): Promise<string> {
  return textOf(await connection.client.callTool({ name, arguments: {} }));
}

async function toolNames(connection: LinearConnection): Promise<string[]> {
  return (await connection.client.listTools()).tools.map((t) => t.name);
}

function delta(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(after)) if (n !== (before[key] ?? 0)) out[key] = n - (before[key] ?? 0);
  return out;
}

beforeAll(async () => {
  servers = await startOAuthServers();
}, 60_000);

afterAll(async () => {
  if (servers && servers.child.exitCode === null) {
    const exited = new Promise((resolve) => servers.child.once('exit', resolve));
    servers.child.kill('SIGTERM');
    await exited;
  }
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('a server configured without oauth, then logged in to', () => {
  let config: string;
  let proxy: LinearConnection;

  beforeAll(async () => {
    config = writeConfig('plain', { url: servers.mcp });
  });

  afterAll(async () => {
    await proxy?.close();
  });

  test('its Bearer 401 means "needs login": no SSE fallback, no restarts, one log line, the command in the error', async () => {
    const before = await servers.requests();
    proxy = await connectLinear(['--config', config], ENV);
    expect(await toolNames(proxy)).not.toContain('whoami');
    const command = `mcp-offload login protected --config ${config}`;
    await expect(callWhoami(proxy)).rejects.toThrow(command);
    // Restarts would come every 50 ms; the wait gives them room to show.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(callWhoami(proxy)).rejects.toThrow(command);
    // One POST refused; an SSE fallback would have sent a GET, a restart another POST.
    expect(delta(await servers.requests(), before)).toEqual({ 'POST 401': 1 });
    const said = proxy.proxyStderr().filter((line) => line.includes('needs a login'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(command);
  }, 60_000);

  test('mcp-offload login runs the flow in the browser and writes a token file of mode 0600 in a 0700 directory', async () => {
    const { code, stderr } = await cli(['login', 'protected', '--config', config]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining('logged in to "protected"') });
    expect(stderr).toContain(`${servers.issuer}/auth?`);
    const file = defaultTokenFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(TOKEN_DIR).mode & 0o777).toBe(0o700);
    const stored = readTokens(file);
    expect(stored.url).toBe(servers.mcp);
    expect(stored.tokens?.access_token.split('.')).toHaveLength(3); // the server's JWT
    expect(stored.tokens?.refresh_token).toEqual(expect.any(String));
  }, 60_000);

  test('the running proxy picks the login up without a restart: the next call goes through', async () => {
    expect(await callWhoami(proxy)).toBe('sub=alice');
    await waitFor(async () => (await toolNames(proxy)).includes('whoami'), 10_000);
  }, 60_000);

  test('an expired access token is refreshed without the user', async () => {
    const file = defaultTokenFile();
    const before = readTokens(file).tokens!;
    await untilExpired(file);
    expect(await callWhoami(proxy)).toBe('sub=alice');
    const after = readTokens(file).tokens!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 60_000);

  test('a refresh the authorization server refuses (revoked) turns into "needs login" with the command', async () => {
    const file = defaultTokenFile();
    const { tokens, client } = readTokens(file);
    const revoked = await fetch(`${servers.issuer}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens!.refresh_token!,
        token_type_hint: 'refresh_token',
        client_id: client!.client_id,
      }),
    });
    expect(revoked.status).toBe(200);
    await untilExpired(file);
    const command = `mcp-offload login protected --config ${config}`;
    await expect(callWhoami(proxy)).rejects.toThrow(command);
    const before = await servers.requests();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(callWhoami(proxy)).rejects.toThrow(command);
    expect(delta(await servers.requests(), before)).toEqual({});
    // The user does what the error says, and the same proxy serves again.
    expect((await cli(['login', 'protected', '--config', config])).code).toBe(0);
    expect(await callWhoami(proxy)).toBe('sub=alice');
  }, 90_000);

  test('mcp-offload logout deletes the stored login', async () => {
    const file = defaultTokenFile();
    const { code, stderr } = await cli(['logout', 'protected', '--config', config]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining(`deleted ${file}`) });
    expect(existsSync(file)).toBe(false);
    expect((await cli(['logout', 'protected', '--config', config])).stderr).toContain('no stored login');
  }, 60_000);
});

describe('a wrapped --url', () => {
  test('needs a login named with --url, gets it, and serves', async () => {
    const proxy = await connectLinear(['--url', servers.mcp], ENV);
    try {
      const command = `mcp-offload login --url ${servers.mcp}`;
      await expect(callWhoami(proxy)).rejects.toThrow(command);
      expect((await cli(['login', '--url', servers.mcp])).code).toBe(0);
      expect(await callWhoami(proxy)).toBe('sub=alice');
    } finally {
      await proxy.close();
      await cli(['logout', '--url', servers.mcp]);
    }
  }, 90_000);
});

describe('a wrapped --url served over HTTP', () => {
  test('every client session finds the login by the same file, the server renamed after its serverInfo or not', async () => {
    const proxy = startCli(['--url', servers.mcp, '--http', '127.0.0.1:0'], ENV);
    const [, url] = await proxy.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
    const session = async () => {
      const client = new Client({ name: 'oauth-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
      return client;
    };
    const call = async (client: Client) => textOf(await client.callTool({ name: 'whoami', arguments: {} }));
    try {
      const first = await session();
      await expect(call(first)).rejects.toThrow(`mcp-offload login --url ${servers.mcp}`);
      await first.close();
      expect((await cli(['login', '--url', servers.mcp])).code).toBe(0);
      // Once connected, the shared connection is named after the server's serverInfo; a new client's own
      // connection (a 2025-era server gets one per client) still reads the file the login wrote.
      const second = await session();
      await waitFor(async () => (await second.listTools()).tools.some((t) => t.name === 'whoami'), 10_000);
      expect(await call(second)).toBe('sub=alice');
      await second.close();
      const third = await session();
      expect(await call(third)).toBe('sub=alice');
      await third.close();
    } finally {
      await proxy.stop();
      await cli(['logout', '--url', servers.mcp]);
    }
  }, 90_000);
});

describe('a server configured with oauth settings', () => {
  test('keeps its tokens in the file it names, relative to the config file', async () => {
    const config = writeConfig('configured', {
      url: servers.mcp,
      oauth: { tokenFile: 'tokens/protected.json', scopes: ['mcp:tools'], clientName: 'offload test' },
    });
    expect((await cli(['login', 'protected', '--config', config])).code).toBe(0);
    const file = join(work, 'tokens', 'protected.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const proxy = await connectLinear(['--config', config], ENV);
    try {
      expect(await callWhoami(proxy)).toBe('sub=alice');
    } finally {
      await proxy.close();
    }
  }, 90_000);

  test('a token file that is not JSON is reported with its path and the command, and nothing is overwritten', async () => {
    const file = join(work, 'broken.json');
    writeFileSync(file, 'not json', { mode: 0o600 });
    const config = writeConfig('broken', { url: servers.mcp, oauth: { tokenFile: file } });
    const proxy = await connectLinear(['--config', config], ENV);
    try {
      await expect(callWhoami(proxy)).rejects.toThrow(`the token file ${file} is not valid JSON`);
      await expect(callWhoami(proxy)).rejects.toThrow(`mcp-offload login protected --config ${config}`);
      expect(readFileSync(file, 'utf8')).toBe('not json');
    } finally {
      await proxy.close();
    }
  }, 60_000);

  test('"oauth" on a local command is a config error', async () => {
    const file = join(work, 'local.yaml');
    writeFileSync(file, 'servers:\n  local:\n    command: node\n    oauth: true\n');
    const run = startCli(['validate', '--config', file]);
    run.child.stdin!.end();
    expect((await run.exit()).code).toBe(1);
    expect(run.stderr()).toContain(`${file}:4:5: "oauth" applies only to a remote server ("url")`);
  });
});

describe('a login that does not complete', () => {
  const config = () =>
    writeConfig('failing', { url: servers.mcp, oauth: { tokenFile: 'failing.json', loginTimeoutMs: 2000 } });

  test.each([
    ['the authorization server answers error=access_denied', 'deny', 'the authorization server refused: access_denied'],
    ['the callback brings another state', 'wrong-state', 'another state than the request'],
    ['the browser never comes back', 'ignore', 'no answer from the browser within 2 s'],
  ])(
    '%s: exit 1, a clear message, no tokens stored',
    async (_label, mode, message) => {
      const { code, stderr } = await cli(['login', 'protected', '--config', config()], { OAUTH_BROWSER_MODE: mode });
      expect({ code, stderr }).toEqual({ code: 1, stderr: expect.stringContaining(message) });
      const file = join(work, 'failing.json');
      expect(existsSync(file) ? readTokens(file).tokens : undefined).toBeUndefined();
    },
    60_000,
  );

  test('an unknown server name is a usage error listing the servers', async () => {
    const { code, stderr } = await cli(['login', 'nope', '--config', config()]);
    expect({ code, stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining('has no server "nope" (its servers: "protected")'),
    });
  });
});
