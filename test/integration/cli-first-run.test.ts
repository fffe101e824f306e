// What a person sees in the first minutes: the proxy started on a terminal, and the names it gives servers.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCliArgs } from '../../src/cli/args.js';
import { singleServerConfig } from '../../src/cli/single-server.js';
import { EVERYTHING_ENTRY, FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { CLI, cliEnv, jsonLines, leftovers, REPO_ROOT, runCli, startCli, stopAllCli } from '../helpers/cli.js';
import { startProxy, testArtifactDir } from '../helpers/proxy.js';
import { textOf } from '../helpers/results.js';

const tmp = mkdtempSync(join(tmpdir(), 'mcp-offload-first-run-'));

afterEach(() => stopAllCli());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

describe('started on a terminal', () => {
  test('says once, in plain words, what it serves and that it waits for an MCP client on stdin; Ctrl-C stops it', async () => {
    // script(1) gives the proxy a terminal of its own; what the terminal shows comes back on script's stdout.
    const command = [NODE, CLI, '--', NODE, FIXTURES.basic, '--name', 'solo', '--roots-on-init'].map(quote).join(' ');
    const terminal = spawn('script', ['-qfec', command, '/dev/null'], { cwd: REPO_ROOT, env: cliEnv(), stdio: 'pipe' });
    let screen = '';
    terminal.stdout.setEncoding('utf8').on('data', (text: string) => (screen += text));
    const exited = new Promise<number | null>((resolve) => terminal.once('close', resolve));
    try {
      await waitFor(() => screen.includes('Ctrl-C stops it'), 15_000, 20, 'the banner');
      expect(screen).toContain('server "basic": 12 tools, 1 prompt, 2 resources');
      expect(screen).toMatch(/Waiting for an MCP client on stdin/);
      expect(screen).toMatch(/artifacts are stored in \S+/);
      expect(screen.match(/Waiting for an MCP client/g)).toHaveLength(1);
      expect(screen).not.toMatch(/Failed to request roots|client undefined/);
      terminal.stdin.write('\x03');
      await exited;
      await waitFor(() => leftovers().length === 0, 10_000, 50, 'the proxy and its upstream to exit');
    } finally {
      terminal.kill('SIGKILL');
    }
  });

  test('a closed terminal (SIGHUP) ends the proxy and its upstream', async () => {
    const cli = startCli(['--', NODE, FIXTURES.basic]);
    await cli.waitForStderr(/upstream \\"basic\\" is up/);
    cli.child.kill('SIGHUP');
    expect(await cli.exit()).toEqual({ code: 0, signal: null });
    await waitFor(() => leftovers().length === 0, 10_000, 50, 'the upstream to exit');
  });

  test('prints no banner when stdin is not a terminal (an MCP client started it)', async () => {
    const cli = startCli(['--', NODE, FIXTURES.basic]);
    await cli.waitForStderr(/upstream \\"basic\\" is up/);
    expect(cli.stderr()).not.toMatch(/Waiting for an MCP client/);
    expect(() => jsonLines(cli.stderr())).not.toThrow();
  });
});

describe('a command that does not exist', () => {
  test('wrapped alone: the proxy says so and exits 1 at once, rather than serve nothing', async () => {
    const result = await runCli(['--', 'nodee', 'server.js']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('mcp-offload: command not found: nodee (did you mean "node"?)');
    expect(result.stdout).toBe('');
  });

  test('validate names its line and exits 1', async () => {
    const file = join(tmp, 'typo.yaml');
    writeFileSync(file, 'servers:\n  a:\n    command: nodee\n');
    const result = await runCli(['validate', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:3:14: command not found: nodee (did you mean "node"?)`);
  });
});

describe('a Node too old for it', () => {
  // The runtime is made to lack what Node 22 brought (JSON.rawJSON), as Node 20 does; the unit test of runtimeProblem
  // covers the version number.
  test('refuses with one line and exits 1, before it starts an upstream or opens its store', async () => {
    const marker = join(tmp, 'started-upstream');
    const upstream = join(tmp, 'touch-upstream.mjs');
    writeFileSync(
      upstream,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, '');\n`,
    );
    const store = join(tmp, 'store-of-an-old-node');
    const cli = startCli(['--artifact-dir', store, '--', NODE, upstream], {
      NODE_OPTIONS: '--import=data:text/javascript,delete%20JSON.rawJSON;delete%20JSON.isRawJSON',
    });
    cli.child.stdin!.end();
    const status = await cli.exit(10_000);
    expect(status.code).toBe(1);
    expect(cli.stderr()).toBe(
      `mcp-offload needs Node.js 22 or newer; this is Node.js ${process.versions.node}, which lacks JSON.rawJSON\n`,
    );
    expect(cli.stdout()).toBe('');
    await new Promise((done) => setTimeout(done, 300));
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(store)).toBe(false);
  });
});

describe('the name of a wrapped server', () => {
  test('comes from the package it runs: server-everything is "everything"', async () => {
    const cli = startCli(['--', NODE, EVERYTHING_ENTRY, 'stdio']);
    const [line] = await cli.waitForStderr(/\{[^\n]*upstream \\"everything\\" is up[^\n]*\}/);
    expect(JSON.parse(line)).toMatchObject({ server: 'everything', serverInfo: 'mcp-servers/everything' });
  });

  test("comes from the server's serverInfo.name when the command line names nothing specific", async () => {
    // <tmp>/server/index.mjs, with no package.json above it: nothing in the path names the server.
    const dir = join(tmp, 'server');
    mkdirSync(dir, { recursive: true });
    const script = join(dir, 'index.mjs');
    writeFileSync(script, `await import(${JSON.stringify(pathToFileURL(FIXTURES.basic).href)});\n`);
    const config = {
      ...singleServerConfig(parseCliArgs(['--', NODE, script, '--name', 'Weather Desk'])),
      logLevel: 'silent' as const,
    };
    config.artifacts.dir = testArtifactDir();
    expect(config.servers[0]!.name).toBe('server');
    const proxy = await startProxy(config);
    try {
      expect(proxy.gateway.upstreams[0]!.name).toBe('Weather-Desk');
      expect(textOf(await proxy.client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('hi');
    } finally {
      await proxy.close();
    }
  });
});
