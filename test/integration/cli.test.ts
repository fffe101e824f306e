// End-to-end tests of the built CLI (dist/cli.js) run as a real child process.
// Needs `npm run build` first (npm test does it).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { USAGE } from '../../src/cli/args.js';
import { closeAllDirect, connectDirect, FIXTURES, NODE, pidAlive, waitFor } from '../helpers/fixtures.js';
import { filesIn } from '../helpers/pipeline.js';
import {
  CLI,
  connectLinear,
  jsonLines,
  leftovers,
  removeArtifactDir,
  REPO_ROOT,
  runCli,
  startCli,
  stopAllCli,
  TEST_ENV,
  textOf,
  upstreamPid,
  type CliProcess,
} from '../helpers/cli.js';

const MiB = 2 ** 20;
const tmp = mkdtempSync(join(tmpdir(), 'mcp-offload-cli-'));
const yaml = (name: string, ...lines: string[]): string => {
  const file = join(tmp, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};
/** A YAML flow sequence of quoted strings. */
const list = (...items: string[]): string => JSON.stringify(items);

afterEach(async () => {
  await closeAllDirect();
  await stopAllCli();
  const left = leftovers();
  for (const pid of left) process.kill(pid, 'SIGKILL');
  expect(left).toEqual([]);
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  removeArtifactDir();
});

/** Rejects if `promise` takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms)),
    ),
  ]);
}

const gone = (pid: number, what = `pid ${pid} to exit`) => waitFor(() => !pidAlive(pid), 5000, 20, what);

/** The parent pid of a process, from /proc (Linux). */
const parentOf = (pid: number): number =>
  Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe('stdio: wrapping one server', () => {
  test('mirrors the server with unprefixed tools, and stdout carries only protocol', async () => {
    const conn = await connectDirect(
      NODE,
      [CLI, '--log-level', 'warn', '--', NODE, FIXTURES.basic, '--name', 'solo'],
      TEST_ENV,
      {
        cwd: REPO_ROOT,
      },
    );
    const names = (await conn.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'add', 'whoami', 'pid']));
    expect(names.filter((n) => n.includes('__'))).toEqual([]);
    expect(conn.client.getServerVersion()?.name).toBe('solo');

    expect(textOf(await conn.client.callTool({ name: 'echo', arguments: { message: 'hello' } }))).toBe('hello');
    expect(textOf(await conn.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(textOf(await conn.client.callTool({ name: 'whoami', arguments: {} }))).toBe('solo');
    // The SDK's StdioClientTransport reports every unparsable stdout line through client.onerror.
    expect(conn.errors).toEqual([]);
    // --log-level warn: nothing below warn (40) was logged.
    expect(jsonLines(conn.stderr()).filter((l) => Number(l.level) < 40)).toEqual([]);
  });
});

describe('--config: several servers', () => {
  test('aggregates two servers under their name prefixes', async () => {
    const file = yaml(
      'two.yaml',
      'logLevel: warn',
      'servers:',
      ...['alpha', 'beta'].flatMap((name) => [
        `  ${name}:`,
        `    command: ${JSON.stringify(NODE)}`,
        `    args: ${list(FIXTURES.basic, '--name', name)}`,
      ]),
    );
    const { client } = await connectLinear(['--config', file]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['alpha__echo', 'beta__echo', 'alpha__whoami', 'beta__whoami']));
    expect(names).not.toContain('echo');
    expect(textOf(await client.callTool({ name: 'alpha__whoami', arguments: {} }))).toBe('alpha');
    expect(textOf(await client.callTool({ name: 'beta__whoami', arguments: {} }))).toBe('beta');
    expect(textOf(await client.callTool({ name: 'beta__echo', arguments: { message: 'b' } }))).toBe('b');
  });
});

describe('the wrapped command without "--"', () => {
  test('serves the server, as when a client strips one "--" (the MCP Inspector CLI)', async () => {
    const conn = await connectLinear(['--log-level', 'warn', NODE, FIXTURES.basic]);
    const { tools } = await conn.client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    await conn.close();
  });
});

describe('shutdown', () => {
  test.each(['SIGTERM', 'SIGINT'] as const)(
    '%s ends the proxy with code 0 and the upstream with it',
    async (signal) => {
      const conn = await connectLinear(['--log-level', 'warn', '--', NODE, FIXTURES.basic]);
      const upstream = await upstreamPid(conn.client);
      process.kill(conn.pid, signal);
      const exit = await within(conn.exited, 5000, `exit after ${signal}`);
      expect(exit).toMatchObject({ code: 0, signal: null });
      await gone(upstream, 'the upstream to exit');
    },
  );

  test('closing stdin ends the proxy and the upstream', async () => {
    const conn = await connectLinear(['--log-level', 'warn', '--', NODE, FIXTURES.basic]);
    const upstream = await upstreamPid(conn.client);
    // Only ends stdin: connectLinear's transport would not signal for 60 s.
    await within(conn.close(), 5000, 'exit after stdin closed');
    expect(await conn.exited).toMatchObject({ code: 0, signal: null });
    await gone(upstream, 'the upstream to exit');
  });

  test('an npx-like launcher: SIGTERM also ends the server the shell forked', async () => {
    const conn = await connectLinear([
      '--log-level',
      'warn',
      '--',
      'sh',
      '-c',
      `${JSON.stringify(NODE)} ${JSON.stringify(FIXTURES.basic)}`,
    ]);
    const server = await upstreamPid(conn.client);
    const shell = parentOf(server);
    // dash (/bin/sh here) forks for `sh -c "cmd"`: the server is a grandchild of the proxy. A shell
    // that execs the command instead would make this a plain child; the checks below would say so.
    expect(shell).not.toBe(conn.pid);
    expect(parentOf(shell)).toBe(conn.pid);
    process.kill(conn.pid, 'SIGTERM');
    expect(await within(conn.exited, 5000, 'exit after SIGTERM')).toMatchObject({ code: 0, signal: null });
    await gone(server, 'the grandchild server to exit');
    await gone(shell, 'the shell to exit');
  });
});

describe('a noisy upstream', () => {
  test('its stdout junk is logged on stderr and never reaches the client', async () => {
    const conn = await connectDirect(NODE, [CLI, '--', NODE, FIXTURES.noisy], TEST_ENV, { cwd: REPO_ROOT });
    expect(textOf(await conn.client.callTool({ name: 'echo', arguments: { message: 'through the noise' } }))).toBe(
      'through the noise',
    );
    expect(textOf(await conn.client.callTool({ name: 'ok', arguments: {} }))).toBe('ok');
    expect(conn.errors).toEqual([]);

    await conn.waitForStderr(/not json-rpc/);
    const warnings = jsonLines(conn.stderr()).filter((l) => l.level === 40 && /ignored a line/.test(String(l.msg)));
    const junk = warnings.map((w) => String(w.line));
    expect(junk).toEqual(expect.arrayContaining(['Starting noisy server v1.0...', 'debug: handling tools/call']));
    expect(junk.some((line) => line.includes('not json-rpc'))).toBe(true);
    expect(warnings.every((w) => w.server === 'noisy-stdout')).toBe(true);
  });
});

describe('logs', () => {
  test('are JSON lines on stderr, the upstream stderr tagged with its server name', async () => {
    const conn = await connectLinear(['--name', 'upstream-a', '--', NODE, FIXTURES.basic]);
    const upstream = await upstreamPid(conn.client);
    await waitFor(
      () => conn.proxyStderr().some((l) => l.includes('ready pid=')),
      5000,
      20,
      'the upstream stderr in the log',
    );

    const logs = conn.proxyStderr().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logs.length).toBeGreaterThanOrEqual(3);
    for (const entry of logs) {
      expect(entry).toEqual(
        expect.objectContaining({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) }),
      );
    }
    expect(logs).toContainEqual(
      expect.objectContaining({ pid: conn.pid, server: 'upstream-a', stream: 'stderr', msg: `ready pid=${upstream}` }),
    );
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'upstream "upstream-a" is up' }));
    // Nothing the proxy printed reached the client as anything but protocol.
    expect(conn.transportLog()).not.toMatch(/ignored a line/);
  });

  // FAILS against src/upstreams/upstream.ts (the "is up" log): its fields `pid` (the upstream's)
  // and `server` (the upstream's serverInfo.name) repeat the keys of the base `pid` (the proxy's)
  // and of the child logger's `server` binding (the configured name), so the JSON line carries
  // each key twice and JSON.parse keeps the wrong one.
  test('every line names each key once: pid is the proxy, server the configured name', async () => {
    const conn = await connectLinear(['--name', 'upstream-a', '--', NODE, FIXTURES.basic]);
    await waitFor(() => conn.proxyStderr().some((l) => l.includes(' is up')), 5000, 20, 'the "is up" log line');
    for (const line of conn.proxyStderr()) {
      const keys = [...line.matchAll(/[{,]"([^"]+)":/g)].map((m) => m[1]);
      expect({ line, duplicates: keys.filter((k, i) => keys.indexOf(k) !== i) }).toEqual({ line, duplicates: [] });
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(entry.pid).toBe(conn.pid);
      if ('server' in entry) expect(entry.server).toBe('upstream-a');
    }
  });
});

describe('--http', () => {
  const ACCEPT = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  async function startHttp(...server: string[]): Promise<{ cli: CliProcess; url: string; base: string }> {
    const cli = startCli(['--http', '127.0.0.1:0', '--log-level', 'warn', '--', NODE, ...server]);
    const [, url, port] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)$/m);
    expect(Number(port)).toBeGreaterThan(0);
    return { cli, url: url!, base: url!.replace(/\/mcp$/, '') };
  }

  async function httpClient(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: 'cli-http-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    return { client, transport };
  }

  test('GET /healthz answers ok and an unknown path 404', async () => {
    const { base } = await startHttp(FIXTURES.basic);
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toMatch(/application\/json/);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  test("keeps an idle connection open longer than Node's 5 s default (65 s, as it says), so a slow client's next POST lands", async () => {
    const { base } = await startHttp(FIXTURES.basic);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; reused: boolean; keepAlive: string }>((resolve, reject) => {
        const req = request(`${base}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              reused: req.reusedSocket,
              keepAlive: String(res.headers['keep-alive']),
            }),
          );
        });
        req.on('error', reject).end();
      });
    try {
      // Node writes the Keep-Alive header from the server's keepAliveTimeout: what it says is what it does.
      expect(await get()).toEqual({ status: 200, reused: false, keepAlive: 'timeout=65' });
      expect(await get()).toEqual({ status: 200, reused: true, keepAlive: 'timeout=65' });
    } finally {
      agent.destroy();
    }
  });

  test('serves SDK clients, each in a session of its own', async () => {
    const { url } = await startHttp(FIXTURES.basic, '--name', 'web');
    const [a, b] = await Promise.all([httpClient(url), httpClient(url)]);
    try {
      expect(a.transport.sessionId).toEqual(expect.any(String));
      expect(b.transport.sessionId).toEqual(expect.any(String));
      expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
      expect((await a.client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'whoami']));
      const [ra, rb] = await Promise.all([
        a.client.callTool({ name: 'echo', arguments: { message: 'from a' } }),
        b.client.callTool({ name: 'echo', arguments: { message: 'from b' } }),
      ]);
      expect([textOf(ra), textOf(rb)]).toEqual(['from a', 'from b']);
      expect(textOf(await b.client.callTool({ name: 'whoami', arguments: {} }))).toBe('web');
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  test('rejects unknown sessions, session-less non-initialize requests and invalid JSON', async () => {
    const { url } = await startHttp(FIXTURES.basic);
    const listTools = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

    const unknown = await fetch(url, {
      method: 'POST',
      headers: { ...ACCEPT, 'mcp-session-id': 'no-such-session' },
      body: listTools,
    });
    expect(unknown.status).toBe(404);
    expect(
      (await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'no-such-session' } })).status,
    ).toBe(404);

    const noSession = await fetch(url, { method: 'POST', headers: ACCEPT, body: listTools });
    expect(noSession.status).toBe(400);
    expect(await noSession.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });

    const invalid = await fetch(url, { method: 'POST', headers: ACCEPT, body: '{"jsonrpc": "2.0", ' });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  test('SIGTERM shuts it down cleanly, with a client connected', async () => {
    const { cli, url, base } = await startHttp(FIXTURES.basic);
    const { client } = await httpClient(url);
    client.onerror = () => undefined; // the standalone SSE stream breaks when the server goes
    const upstream = await upstreamPid(client);
    cli.child.kill('SIGTERM');
    expect(await cli.exit(5000)).toEqual({ code: 0, signal: null });
    await gone(upstream, 'the upstream to exit');
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    await client.close();
  });
});

describe('large messages (100 MiB) in both directions', () => {
  const SIZE = 100 * MiB;
  const TIMEOUT = 120_000;
  const report = (what: string, started: number) => {
    if (process.env.CLI_TEST_TIMINGS) console.log(`${what}: ${Date.now() - started} ms`);
  };
  // These test the transports, so the result pipeline is told to leave results alone: by default
  // it would store the 100 MiB text as an artifact and send the client a short summary instead.
  const config = () =>
    yaml(
      'big.yaml',
      'logLevel: warn',
      'servers:',
      '  big:',
      `    command: ${JSON.stringify(NODE)}`,
      `    args: ${list(FIXTURES.bigResult)}`,
      '    pipeline: {mode: passthrough}',
    );

  async function bothWays(client: Client, label: string): Promise<void> {
    let started = Date.now();
    const text = textOf(
      await client.callTool({ name: 'big-text', arguments: { mb: 100 } }, undefined, { timeout: TIMEOUT }),
    );
    report(`${label} big-text 100 MiB`, started);
    expect(text.length).toBe(SIZE);
    expect(text.slice(0, 16)).toBe('x'.repeat(16));
    expect(text.slice(SIZE / 2, SIZE / 2 + 16)).toBe('x'.repeat(16));
    expect(/[^x]/.test(text)).toBe(false);

    started = Date.now();
    const data = 'y'.repeat(SIZE);
    expect(
      textOf(await client.callTool({ name: 'size-of', arguments: { data } }, undefined, { timeout: TIMEOUT })),
    ).toBe(String(SIZE));
    report(`${label} size-of 100 MiB`, started);
  }

  test(
    'stdio, read by our linear ProcessTransport',
    async () => {
      const conn = await connectLinear(['--config', config()]);
      await bothWays(conn.client, 'stdio');
    },
    TIMEOUT,
  );

  test(
    '--http, with the SDK StreamableHTTPClientTransport',
    async () => {
      const cli = startCli(['--config', config(), '--http', '127.0.0.1:0']);
      const [, url] = await cli.waitForStderr(/listening on (\S+)/);
      const client = new Client({ name: 'cli-big-test', version: '1.0.0' }, { capabilities: {} });
      await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
      try {
        await bothWays(client, 'http');
      } finally {
        await client.close();
      }
    },
    TIMEOUT,
  );
});

describe('usage and validation', () => {
  const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

  test('an unknown option exits 2 with the usage', async () => {
    const r = await runCli(['--frobnicate']);
    expect(r.code).toBe(2);
    // One line: the help is one option away, and would push the error off a small terminal.
    expect(r.stderr).toBe(
      "mcp-offload: unknown option --frobnicate; the wrapped server's own options go after its command, as in: " +
        'mcp-offload <command> --frobnicate (see mcp-offload --help)\n',
    );
    expect(r.stdout).toBe('');
  });

  test('no arguments exits 2: nothing to proxy', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mcp-offload: nothing to proxy[^\n]*\(see mcp-offload --help\)\n$/);
  });

  test('--version and --help print on stdout and exit 0', async () => {
    expect(await runCli(['--version'])).toEqual({ code: 0, signal: null, stdout: `${VERSION}\n`, stderr: '' });
    expect(await runCli(['--help'])).toEqual({ code: 0, signal: null, stdout: USAGE, stderr: '' });
  });

  test('validate accepts config/example.yaml', async () => {
    const r = await runCli(['validate', '--config', 'config/example.yaml']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`${join(REPO_ROOT, 'config/example.yaml')}: ok (1 server(s))\n`);
  });

  test('validate refuses what the proxy would refuse to start with: HTTP beyond this machine without authentication', async () => {
    const open = yaml(
      'open.yaml',
      'http:',
      '  host: 0.0.0.0',
      '  port: 8080',
      'servers:',
      '  one:',
      '    command: node',
    );
    const refused = await runCli(['validate', '--config', open]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`^${escape(open)}: refusing to listen on 0\\.0\\.0\\.0 without authentication`),
    );
    const local = yaml(
      'local.yaml',
      'http:',
      '  host: 127.0.0.1',
      '  port: 8080',
      'servers:',
      '  one:',
      '    command: node',
    );
    expect(await runCli(['validate', '--config', local])).toMatchObject({
      code: 0,
      stderr: `${local}: ok (1 server(s))\n`,
    });
  });

  test('validate lists every problem at its file:line:column', async () => {
    const file = yaml(
      'bad.yaml',
      'servers:', // 1
      '  one:', // 2
      '    command: node', // 3
      '    frobnicate: true', // 4: unknown key
      '  two:', // 5: no command
      '    args: ["x"]', // 6
      '  three:', // 7
      '    command: node', // 8
      '    timeoutMs: soon', // 9: not a number
    );
    expect(isAbsolute(file)).toBe(true);
    const r = await runCli(['validate', '--config', file]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(new RegExp(`^${escape(file)}:4:5: .*frobnicate`));
    expect(lines[1]).toMatch(new RegExp(`^${escape(file)}:5:3: .*"two".*command`));
    expect(lines[2]).toMatch(new RegExp(`^${escape(file)}:9:\\d+: .*timeoutMs`));
    expect(lines[3]).toBe('3 problem(s) found.');
  });

  test('a missing --config file exits 1 with a clear message', async () => {
    const r = await runCli(['--config', 'missing.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `mcp-offload: cannot read config file ${join(REPO_ROOT, 'missing.yaml')}: no such file (ENOENT)\n`,
    );
  });

  test('a port in use is one line and exit 1, before any upstream is started', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const marker = join(mkdtempSync(join(tmpdir(), 'mcp-offload-port-')), 'started');
    try {
      const server = `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`;
      const r = await runCli(['--http', `127.0.0.1:${port}`, '--', NODE, '-e', server]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `mcp-offload: cannot listen on 127.0.0.1:${port}: the port is in use (choose another with --http)\n`,
      );
      expect(existsSync(marker)).toBe(false);
    } finally {
      taken.close();
    }
  });
});

describe('an upstream that fails at startup', () => {
  test('the healthy one is served and the proxy keeps running', async () => {
    const file = yaml(
      'one-broken.yaml',
      'servers:',
      '  broken:',
      `    command: ${JSON.stringify(NODE)}`,
      `    args: ${list(FIXTURES.crash)}`,
      '    env: {CRASH_ON_START: "1"}',
      '    restart: {maxRetries: 2, initialDelayMs: 50, maxDelayMs: 100}',
      '  healthy:',
      `    command: ${JSON.stringify(NODE)}`,
      `    args: ${list(FIXTURES.basic, '--name', 'healthy')}`,
    );
    const conn = await connectLinear(['--config', file]);
    const names = (await conn.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['healthy__echo', 'healthy__whoami']));
    expect(names.filter((n) => n.startsWith('broken__'))).toEqual([]);

    // Still up, and still serving, after it gave up on the broken one.
    const log = () => conn.proxyStderr().map((line) => JSON.parse(line) as Record<string, unknown>);
    await waitFor(
      () => log().some((l) => l.msg === 'giving up on upstream "broken"'),
      10_000,
      50,
      'the proxy to give up',
    );
    expect(log()).toContainEqual(
      expect.objectContaining({ server: 'broken', stream: 'stderr', msg: expect.stringContaining('crash on start') }),
    );
    expect(pidAlive(conn.pid)).toBe(true);
    expect(conn.transport.exit).toBeUndefined();
    expect(textOf(await conn.client.callTool({ name: 'healthy__whoami', arguments: {} }))).toBe('healthy');
    await expect(conn.client.callTool({ name: 'broken__ok', arguments: {} })).rejects.toThrow(/not found/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('artifacts through the CLI', () => {
  test('--artifact-dir receives the extracted image; gc removes it once expired', async () => {
    const dir = join(tmp, 'store-a');
    const proxy = await connectLinear(['--log-level', 'warn', '--artifact-dir', dir, '--', NODE, FIXTURES.bigResult]);
    const result = await proxy.client.callTool({ name: 'big-image', arguments: { mb: 2 } });
    const link = (result.content as { type: string; uri?: string }[]).find((b) => b.type === 'resource_link');
    expect(link?.uri).toMatch(/^artifact:\/\/big-result\/big-image_[0-9a-f]{12}\.png$/);
    expect(await filesIn(dir)).toHaveLength(1);
    await proxy.close();

    const kept = await runCli(['gc', '--artifact-dir', dir]);
    expect(kept.code).toBe(0);
    expect(kept.stderr).toMatch(/removed 0 artifacts .*1 remain/);
    // Stored long ago, as its metadata tells: no waiting for the clock.
    const config = yaml('gc.yaml', `artifacts: {dir: "${dir}", ttlHours: 1}`);
    for (const name of readdirSync(join(dir, '.meta')).filter((n) => n.endsWith('.json'))) {
      const file = join(dir, '.meta', name);
      const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      writeFileSync(
        file,
        JSON.stringify({ ...record, created: '2000-01-01T00:00:00.000Z', lastStored: '2000-01-01T00:00:00.000Z' }),
      );
    }
    const collected = await runCli(['gc', '--config', config, '--artifact-dir', dir]);
    expect(collected.code).toBe(0);
    expect(collected.stderr).toMatch(/removed 1 artifact /);
    expect(await filesIn(dir)).toEqual([]);
  });

  test('the artifact directory: --artifact-dir, then MCP_OFFLOAD_ARTIFACT_DIR, then artifacts.dir', async () => {
    const config = yaml('dirs.yaml', `artifacts: {dir: "${join(tmp, 'from-config')}"}`);
    const fromEnv = await runCli(['gc', '--config', config]);
    expect(fromEnv.stderr).toContain(`in ${TEST_ENV.MCP_OFFLOAD_ARTIFACT_DIR}`);
    const fromFlag = await runCli(['gc', '--config', config, '--artifact-dir', join(tmp, 'from-flag')]);
    expect(fromFlag.stderr).toContain(`in ${join(tmp, 'from-flag')}`);
  });

  test("a restarted stdio proxy lists and reads the previous run's artifacts: they belong to the local user, not to a session", async () => {
    const dir = join(tmp, 'store-c');
    const args = ['--log-level', 'warn', '--artifact-dir', dir, '--', NODE, FIXTURES.bigResult];
    const first = await connectLinear(args);
    const result = await first.client.callTool({ name: 'big-image', arguments: { mb: 2 } });
    const uri = (result.content as { type: string; uri?: string }[]).find((b) => b.type === 'resource_link')?.uri;
    expect(uri).toMatch(/^artifact:\/\//);
    const read = await first.client.readResource({ uri: uri! });
    await first.close();

    const second = await connectLinear(args);
    expect((await second.client.listResources()).resources.map((r) => r.uri)).toContain(uri);
    expect(await second.client.readResource({ uri: uri! })).toEqual(read);
    await second.close();
  });

  test('--dry-run passes results unchanged and stores nothing', async () => {
    const dir = join(tmp, 'store-b');
    const proxy = await connectLinear([
      '--log-level',
      'warn',
      '--dry-run',
      '--artifact-dir',
      dir,
      '--',
      NODE,
      FIXTURES.bigResult,
    ]);
    const result = await proxy.client.callTool({ name: 'big-image', arguments: { mb: 2 } });
    const image = (result.content as { type: string; data?: string }[]).find((b) => b.type === 'image');
    expect(image?.data?.length).toBeGreaterThan(1_000_000);
    expect(await filesIn(dir)).toEqual([]);
    await proxy.close();
  });
});
