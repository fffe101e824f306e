// V8's tiering thresholds (src/cli/tiering.ts): once lowered, a function called a thousand times is optimized where
// V8's defaults leave it interpreted; a process started with its own thresholds keeps them; the CLI lowers them once
// its upstreams are up, and says so at debug level. The first three run a child Node with --allow-natives-syntax,
// whose %GetOptimizationStatus tells interpreted from optimized code; compilation is made synchronous there
// (--no-concurrent-recompilation), so the status is read after the calls, not at a time a background thread picks.
import { expect, test } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { CLI, cliEnv, REPO_ROOT } from '../helpers/cli.js';

const NODE = process.execPath;
const TIERING = new URL('../../dist/cli/tiering.js', import.meta.url).href;
/** V8's OptimizationStatus bit for optimized code (runtime-test.cc: kOptimized). */
const OPTIMIZED = 1 << 4;

/** Calls a small function 1000 times across turns of the event loop, as a proxy calls its per-message code. */
const PROBE = `
const { tierEarly } = await import(${JSON.stringify(TIERING)});
const set = process.argv.includes('early') ? tierEarly() : [];
function work(o) { return o.a * 2 + o.b.length; }
let sum = 0;
for (let round = 0; round < 40; round++) {
  for (let i = 0; i < 25; i++) sum += work({ a: i, b: 'xx' });
  await null;
}
console.log(JSON.stringify({ set, status: %GetOptimizationStatus(work), sum }));
`;

function probe(nodeFlags: string[], ...args: string[]): { set: string[]; status: number } {
  const child = spawnSync(
    NODE,
    ['--allow-natives-syntax', '--no-concurrent-recompilation', ...nodeFlags, '--input-type=module', '-', ...args],
    { input: PROBE, encoding: 'utf8', cwd: REPO_ROOT },
  );
  expect(child.stderr).toBe('');
  const out = JSON.parse(child.stdout) as { set: string[]; status: number; sum: number };
  expect(out.sum).toBe(26_000);
  return out;
}

test("V8's defaults leave a function called 1000 times interpreted", () => {
  expect(probe([]).status & OPTIMIZED).toBe(0);
});

test('tierEarly(): the same function is optimized', () => {
  const out = probe([], 'early');
  expect(out.set).toContain('--invocation-count-for-turbofan=300');
  expect(out.status & OPTIMIZED).toBe(OPTIMIZED);
});

test('a process started with its own thresholds keeps them', () => {
  const out = probe(['--invocation-count-for-turbofan=100000'], 'early');
  expect(out.set).toEqual([]);
  expect(out.status & OPTIMIZED).toBe(0);
});

/** `node [nodeFlags] dist/cli.js --log-level debug` over the basic fixture server: its stderr once `pattern` shows. */
async function cliSays(nodeFlags: string[], pattern: string): Promise<string> {
  const child = spawn(NODE, [...nodeFlags, CLI, '--log-level', 'debug', '--', NODE, 'test/fixtures/basic-server.mjs'], {
    cwd: REPO_ROOT,
    env: cliEnv(),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const deadline = Date.now() + 15_000;
  while (!err.includes(pattern) && child.exitCode === null && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  child.kill();
  return err;
}

test('the CLI lowers them once its upstream is up, unless node was started with its own', async () => {
  const early = await cliSays([], 'V8 optimizes hot code early');
  expect(early).toContain('"msg":"V8 optimizes hot code early"');
  // After the upstream is up: the start-up code ran with V8's defaults.
  const up = early.indexOf('"server":"basic","state":"up"');
  expect(up).toBeGreaterThanOrEqual(0);
  expect(early.indexOf('V8 optimizes')).toBeGreaterThan(up);
  const chosen = await cliSays(['--invocation-count-for-turbofan=3000'], 'V8 tiering left');
  expect(chosen).toContain('"msg":"V8 tiering left as the user set it"');
  expect(chosen).not.toContain('V8 optimizes hot code early');
});
