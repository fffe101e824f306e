// What a proxy loads is memory it holds for its whole life: a one-line stdio wrap, the most common use, loads
// neither the config file's loader (YAML, the schema validator) nor what only some results or some settings need
// (JSON token scans, tool search, downloads over HTTP, image codecs, OAuth, S3, Redis, tracing, the browser). Each is
// imported where it is first needed. Checked on the real process: a preloaded hook logs every module it resolves.
import { afterAll, afterEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { removeArtifactDir, startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { NODE, waitFor } from '../helpers/fixtures.js';

const SERVER = fileURLToPath(new URL('../fixtures/legacy-probe-server.mjs', import.meta.url));
const HOOK = pathToFileURL(fileURLToPath(new URL('../helpers/module-log.mjs', import.meta.url))).href;

/** Packages a one-line wrap must not load for a session of plain calls. */
const LATER = [
  'yaml',
  'ajv',
  'jsonc-parser',
  'minisearch',
  'stemmer',
  'sharp',
  'jose',
  'puppeteer-core',
  '@aws-sdk/client-s3',
  'redis',
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  // An ESM import of node:http reads all its exports, which loads undici, http2, tls and zlib: several MiB.
  'node:http',
  'node:https',
];

const dirs: string[] = [];
afterEach(async () => {
  await stopAllCli();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => removeArtifactDir());

/**
 * The proxy started with the module log: `args` made for a fresh directory, `loaded()` the packages (names under
 * node_modules, and node:* built-ins) it has resolved so far, `lines()` the log as written.
 */
function loggedProxy(args: (dir: string) => string[]): {
  cli: CliProcess;
  loaded(): Set<string>;
  lines(): string[];
} {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-modules-'));
  dirs.push(dir);
  const log = join(dir, 'modules');
  const cli = startCli(args(dir), { NODE_OPTIONS: `--import=${HOOK}`, MODULE_LOG: log });
  const lines = () => readFileSync(`${log}.${cli.pid}`, 'utf8').split('\n');
  const loaded = () => {
    const packages = new Set<string>();
    for (const url of lines()) {
      const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/|^(node:[\w/]+)$/.exec(url);
      if (match) packages.add((match[1] ?? match[2])!);
    }
    return packages;
  };
  return { cli, loaded, lines };
}

/** What a stdio proxy loaded through a session of `initialize`, a list, a call. */
async function packagesLoaded(args: (dir: string) => string[]): Promise<Set<string>> {
  const { cli, loaded } = loggedProxy(args);
  const send = (message: object) => cli.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const info = { name: 'modules-test', version: '1.0.0' };
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: info } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  send({ id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
  await waitFor(() => cli.stdout().includes('"id":3'), 15_000);
  expect(cli.stdout()).toContain('echo: hi');
  return loaded();
}

describe('what a proxy loads', () => {
  test('a one-line stdio wrap loads none of the packages only some uses need', async () => {
    const loaded = await packagesLoaded((dir) => ['--artifact-dir', join(dir, 'artifacts'), '--', NODE, SERVER]);
    // The hook sees the packages the proxy does load: the logger, and the built-ins it spawns and reads with.
    expect(loaded).toContain('pino');
    expect(loaded).toContain('node:child_process');
    expect(LATER.filter((name) => loaded.has(name))).toEqual([]);
  }, 30_000);

  test('a config file brings its loader: the YAML parser and the schema validator', async () => {
    const loaded = await packagesLoaded((dir) => {
      const file = join(dir, 'config.yaml');
      writeFileSync(
        file,
        `servers:\n  probe:\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(SERVER)}]\n`,
      );
      return ['--config', file, '--artifact-dir', join(dir, 'artifacts')];
    });
    expect(loaded).toContain('yaml');
    expect(loaded).toContain('ajv');
    expect(['jsonc-parser', 'minisearch', 'stemmer', 'sharp'].filter((name) => loaded.has(name))).toEqual([]);
  }, 30_000);

  test('an --http proxy without Redis loads no Redis client, and node:http without undici', async () => {
    const { cli, loaded, lines } = loggedProxy((dir) => [
      '--artifact-dir',
      join(dir, 'artifacts'),
      '--http',
      '127.0.0.1:0',
      '--',
      NODE,
      SERVER,
    ]);
    await cli.waitForStderr(/listening on http/);
    // The server it serves with is loaded; the client of what replicas share is not.
    expect(loaded()).toContain('node:http');
    expect(['redis', '@redis/client'].filter((name) => loaded().has(name))).toEqual([]);
    // node:http is required, not imported (wire/node-http.ts): its ESM facade would load undici and http2 (~10 MiB).
    await cli.stop();
    const builtins = lines().filter((line) => line.startsWith('builtin:'));
    expect(builtins).toContain('builtin:NativeModule http');
    expect(builtins.filter((line) => /undici|http2/.test(line))).toEqual([]);
  }, 30_000);
});
