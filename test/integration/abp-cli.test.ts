// `mcp-offload --abp` as a real child process over stdio (needs `npm run build` first; npm test does it):
// the browser backend alone, next to a wrapped server, and its command-line errors.
import { afterAll, afterEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { connectLinear, leftovers, removeArtifactDir, runCli, startCli, stopAllCli } from '../helpers/cli.js';
import { startAbpServer, type AbpServer } from '../helpers/abp-server.js';

const tmp = mkdtempSync(join(tmpdir(), 'mcp-offload-abp-cli-'));
let app: AbpServer | undefined;

afterEach(async () => {
  await stopAllCli();
  expect(leftovers()).toEqual([]);
});

afterAll(async () => {
  await app?.close();
  removeArtifactDir();
  rmSync(tmp, { recursive: true, force: true });
});

describe('mcp-offload --abp', () => {
  test('alone, it is the browser backend: its tools over stdio, a call saved into ABP_OUTPUT_DIR, no browser left', async () => {
    app = await startAbpServer();
    const output = join(tmp, 'abp-output');
    // No --artifact-dir and no MCP_OFFLOAD_ARTIFACT_DIR: the seed's variable names the directory.
    const conn = await connectLinear(['--abp', '--log-level', 'warn'], {
      MCP_OFFLOAD_ARTIFACT_DIR: '',
      ABP_OUTPUT_DIR: output,
      ABP_CALL_TIMEOUT: '20000',
    });
    expect(conn.client.getServerVersion()?.name).toBe('mcp-offload-abp');
    const { tools } = await conn.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'abp_call',
      'abp_connect',
      'abp_disconnect',
      'abp_render_to_pdf',
      'abp_status',
      'artifact_list',
      'artifact_read',
    ]);

    const connected = await conn.client.callTool({ name: 'abp_connect', arguments: { url: `${app.url}/` } });
    expect(JSON.stringify(connected.content)).toContain('Connected to ABP fixture app');
    const saved = (await conn.client.callTool({
      name: 'abp_call',
      arguments: { capability: 'text.reverse', params: { text: 'stdio' } },
    })) as {
      content: Array<{ type: string; text?: string }>;
    };
    expect(saved.content[0]!.text).toMatch(
      new RegExp(`^File saved: ${output}/browser/abp_call_[0-9a-f]{12}\\.json\\n`),
    );
    // Closing stdin ends the proxy, which closes the browser first.
    await conn.close();
    await conn.exited;
  }, 60_000);

  test('next to a wrapped server, it is a server named "browser"', async () => {
    const conn = await connectLinear(['--abp', '--log-level', 'warn', '--', NODE, FIXTURES.basic]);
    const names = (await conn.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['browser__abp_connect', 'browser__abp_call', 'basic__echo']));
    await conn.close();
  }, 30_000);

  test('--help documents it', async () => {
    const r = await runCli(['--help']);
    expect(r.stdout).toMatch(/--abp {19}the built-in browser backend/);
  });

  test('command-line errors: unusable ABP_* variables, a name already taken, validate and gc', async () => {
    const env = startCli(['--abp'], { ABP_BROWSER_TIMEOUT: 'later' });
    env.child.stdin!.end();
    expect(await env.exit(10_000)).toEqual({ code: 2, signal: null });
    expect(env.stderr()).toBe(
      'mcp-offload: ABP_BROWSER_TIMEOUT must be a whole number of milliseconds (1 or more), got "later"\n',
    );

    const file = join(tmp, 'taken.yaml');
    writeFileSync(file, `servers:\n  browser: {command: ${NODE}}\n`);
    const taken = await runCli(['--abp', '--config', file]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toBe(`mcp-offload: --abp adds a server named "browser", but ${file} already has one\n`);

    expect((await runCli(['validate', '--abp', '--config', file])).stderr).toMatch(
      /^mcp-offload: validate takes only --config/,
    );
  });
});
