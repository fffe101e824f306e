import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  jsonLines,
  leftovers,
  removeArtifactDir,
  runCli,
  startCli,
  stopAllCli,
  type CliProcess,
} from '../helpers/cli.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { bearer, connectHttp, downloadUrlOf, linksOf, textsOf } from '../helpers/sidecar.js';

const TOKEN = 'cli-test-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-sidecar-cli-'));

function writeConfig(name: string, yaml: string): string {
  const file = join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

/** Starts the CLI on 127.0.0.1:<free port> and resolves with its base URL. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<{ cli: CliProcess; base: string }> {
  const cli = startCli(['--http', '127.0.0.1:0', ...args], env);
  const [, base] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m);
  return { cli, base: base! };
}

afterAll(async () => {
  await stopAllCli();
  expect(leftovers()).toEqual([]);
  removeArtifactDir();
  rmSync(dir, { recursive: true, force: true });
});

describe('sidecar CLI: refusing to expose itself', () => {
  test('a non-loopback address without any token is refused at startup, with the way out named', async () => {
    const result = await runCli(['--http', '0.0.0.0:0', '--', NODE, FIXTURES.artifact]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without authentication/);
    expect(result.stderr).toMatch(/MCP_OFFLOAD_AUTH_TOKEN/);
    expect(result.stderr).toMatch(/allowUnauthenticated/);
  });

  test('with a token, or with allowUnauthenticated, it starts', async () => {
    const withToken = startCli(['--http', '0.0.0.0:0', '--', NODE, FIXTURES.artifact], {
      MCP_OFFLOAD_AUTH_TOKEN: TOKEN,
    });
    await withToken.waitForStderr(/listening on http:\/\/0\.0\.0\.0:\d+\/mcp/);
    await withToken.stop();
    const open = writeConfig(
      'open.yaml',
      `servers: {art: {command: ${NODE}, args: [${FIXTURES.artifact}]}}\nauth: {allowUnauthenticated: true}\n`,
    );
    const allowed = startCli(['--http', '0.0.0.0:0', '--config', open]);
    await allowed.waitForStderr(/listening on/);
    await allowed.stop();
  });

  test('a token shorter than 16 characters is refused', async () => {
    const cli = startCli(['--http', '127.0.0.1:0', '--', NODE, FIXTURES.artifact], { MCP_OFFLOAD_AUTH_TOKEN: 'short' });
    cli.child.stdin!.end();
    const exit = await cli.exit();
    expect(exit.code).toBe(1);
    expect(cli.stderr()).toMatch(/MCP_OFFLOAD_AUTH_TOKEN must be at least 16 characters/);
  });
});

describe('sidecar CLI: metrics and the audit log', () => {
  test('/metrics counts calls, latency, offloaded bytes, tokens, artifacts and restarts; audit lines name who and what, never secrets or payloads', async () => {
    const { cli, base } = await serve(['--name', 'art', '--', NODE, FIXTURES.artifact], {
      MCP_OFFLOAD_AUTH_TOKEN: TOKEN,
    });
    const client = await connectHttp(base, TOKEN);
    const first = await client.client.callTool({ name: 'image', arguments: { tag: 'metrics-1' } });
    await client.client.callTool({ name: 'image', arguments: { tag: 'metrics-2' } });
    expect(textsOf(await client.client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('hi');
    const read = await client.client.readResource({ uri: linksOf(first)[0]! });
    const payload = (read.contents[0] as { blob: string }).blob;
    const link = downloadUrlOf(first);
    const download = await fetch(link);
    expect(download.status).toBe(200);
    // Read to the end: the proxy counts a download once it has sent the last byte, which a client that only read the
    // headers may ask /metrics before (CI saw the counter missing once).
    expect(Buffer.from(await download.arrayBuffer()).toString('base64')).toBe(payload);

    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const response = await fetch(`${base}/metrics`, { headers: bearer(TOKEN) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const metrics = await response.text();
    const value = (line: string) =>
      Number(new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect(value('mcp_offload_tool_calls_total{server="art",tool="image",outcome="ok"}')).toBe(2);
    expect(value('mcp_offload_tool_calls_total{server="art",tool="echo",outcome="ok"}')).toBe(1);
    expect(value('mcp_offload_tool_call_duration_seconds_count{server="art",tool="image"}')).toBe(2);
    expect(value('mcp_offload_tool_call_duration_seconds_bucket{le="+Inf",server="art",tool="image"}')).toBe(2);
    expect(value('mcp_offload_artifacts_stored_total{server="art",tool="image"}')).toBe(2);
    const bytes = value('mcp_offload_offloaded_bytes_total{server="art",tool="image"}');
    expect(bytes).toBe(2 * Buffer.from(payload, 'base64').length);
    expect(value('mcp_offload_tokens_saved_total{server="art",tool="image"}')).toBe(
      2 * Math.ceil((Math.ceil(bytes / 2 / 3) * 4) / 4),
    );
    expect(value('mcp_offload_artifacts')).toBe(2);
    // What the upstream sent against what the client got: an image offloaded is a fraction of what it was.
    const sent = value('mcp_offload_upstream_bytes_total{server="art",tool="image"}');
    const got = value('mcp_offload_client_bytes_total{server="art",tool="image"}');
    expect(sent).toBeGreaterThan(bytes);
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(sent);
    expect(value('mcp_offload_upstream_tokens_total{server="art",tool="image"}')).toBeGreaterThanOrEqual(sent / 4);
    expect(value('mcp_offload_client_tokens_total{server="art",tool="echo"}')).toBeGreaterThan(0);
    expect(value('mcp_offload_upstream_restarts{server="art"}')).toBe(0);
    expect(value('mcp_offload_upstream_up{server="art"}')).toBe(1);
    expect(value('mcp_offload_artifacts_collected_total')).toBe(0);
    expect(value('mcp_offload_artifact_reads_total{via="resources/read"}')).toBe(1);
    expect(value('mcp_offload_artifact_reads_total{via="download"}')).toBe(1);
    expect(value('mcp_offload_sessions')).toBe(1);

    await client.close();
    await cli.stop();
    const stderr = cli.stderr();
    const audit = jsonLines(stderr).filter((line) => line.audit === true);
    expect(audit.map((line) => line.event)).toEqual([
      'tool.call',
      'artifact.created',
      'tool.call',
      'artifact.created',
      'tool.call',
      'artifact.read',
      'artifact.downloaded',
    ]);
    // A call's line says what the upstream sent and what the client got (mcp-offload stats adds them up).
    expect(audit[0]).toMatchObject({ server: 'art', tool: 'image', outcome: 'ok', artifacts: 1 });
    expect(audit[0]!.upstreamBytes).toBeGreaterThan(Buffer.from(payload, 'base64').length);
    expect(audit[0]!.clientBytes).toBeLessThan(audit[0]!.upstreamBytes as number);
    expect(audit[4]).toMatchObject({ event: 'tool.call', tool: 'echo', artifacts: 0 });
    expect(audit[4]!.clientBytes).toBeGreaterThan(0);
    expect(audit.filter((line) => line.event !== 'tool.call').map((line) => line.event)).toEqual([
      'artifact.created',
      'artifact.created',
      'artifact.read',
      'artifact.downloaded',
    ]);
    const [created, , readLine, downloaded] = audit.filter((line) => line.event !== 'tool.call');
    expect(created).toMatchObject({
      who: { token: 'env', session: expect.stringMatching(/^s\d+$/) },
      id: expect.stringMatching(/^art\/image_/),
      size: expect.any(Number),
      mimeType: 'image/png',
      server: 'art',
      tool: 'image',
    });
    expect(readLine).toMatchObject({ via: 'resources/read', who: { token: 'env' } });
    expect(downloaded).toMatchObject({ via: 'download', who: { link: true }, bytes: downloaded!.size });
    // No token, no link signature, no payload anywhere in the log.
    expect(stderr).not.toContain(TOKEN);
    expect(stderr).not.toContain(new URL(link).searchParams.get('sig')!);
    expect(stderr).not.toContain(payload.slice(0, 40));
  });
});

describe('sidecar CLI: readiness and shutdown', () => {
  test('/readyz is 503 naming the upstreams that are not connected', async () => {
    const config = writeConfig(
      'broken.yaml',
      [
        'servers:',
        `  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}`,
        `  broken: {command: ${NODE}, args: ["-e", "process.exit(3)"], restart: {initialDelayMs: 60000}}`,
        'gateway: {startupTimeoutMs: 3000}',
      ].join('\n'),
    );
    const { cli, base } = await serve(['--config', config]);
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { status: string; notReady: Array<{ name: string }> };
    expect(body.status).toBe('not ready');
    expect(body.notReady.map((u) => u.name)).toEqual(['broken']);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await cli.stop();
  });

  test('SIGTERM lets a call in flight finish, refuses new work, then exits 0', async () => {
    const config = writeConfig(
      'slow.yaml',
      `servers: {slow: {command: ${NODE}, args: [${FIXTURES.slow}]}}\ngateway: {shutdownGraceMs: 20000}\n`,
    );
    const { cli, base } = await serve(['--config', config]);
    const client = await connectHttp(base, 'unused-without-tokens', { reconnect: false });
    let signaled = false;
    const call = client.client.callTool({ name: 'progress', arguments: { steps: 8, intervalMs: 100 } }, undefined, {
      onprogress: () => {
        if (signaled) return;
        signaled = true;
        cli.child.kill('SIGTERM');
      },
    });
    await cli.waitForStderr(/"msg":"shutting down"/);
    // New sessions are refused while the call runs (503 on a kept-alive connection, or no connection at all).
    const late = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);
    expect(textsOf(await call)).toBe('completed 8 steps');
    const exit = await cli.exit(15_000);
    expect(exit).toEqual({ code: 0, signal: null });
    const shutdown = jsonLines(cli.stderr()).find((line) => line.msg === 'shutting down');
    expect(shutdown).toMatchObject({ reason: 'SIGTERM', inFlight: 1, graceMs: 20000 });
    await client.close().catch(() => undefined);
  });

  test('a call that outlasts the grace period is cut off, and the process still exits 0', async () => {
    const config = writeConfig(
      'short.yaml',
      `servers: {slow: {command: ${NODE}, args: [${FIXTURES.slow}]}}\ngateway: {shutdownGraceMs: 300}\n`,
    );
    const { cli, base } = await serve(['--config', config]);
    const client = await connectHttp(base, 'unused-without-tokens', { reconnect: false });
    let signaled = false;
    const call = client.client
      .callTool({ name: 'progress', arguments: { steps: 600, intervalMs: 100 } }, undefined, {
        timeout: 120_000,
        onprogress: () => {
          if (signaled) return;
          signaled = true;
          cli.child.kill('SIGTERM');
        },
      })
      .then(
        () => 'answered',
        () => 'cut off',
      );
    const exit = await cli.exit(15_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(cli.stderr()).toMatch(/calls still in flight after the grace period/);
    // The gateway is gone; the client gives up on the call when it closes.
    await client.close().catch(() => undefined);
    expect(await call).toBe('cut off');
  });
});
