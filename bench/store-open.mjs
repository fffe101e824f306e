#!/usr/bin/env node
// A stdio proxy's start over an artifact directory of many records: how long until it answers `initialize`, how
// long the store takes to open, and its first collection after (which runs beside the first calls). A one-line wrap
// is started by its client on every launch, over a directory that keeps a week of artifacts (the default TTL), so
// its start grows with what the directory holds.
//
//   npm run build && node bench/store-open.mjs [--records 20000] [--rounds 3] [--a <another built checkout>]
//
// The directory is filled once (through the store, as puts would), then each round opens it with this build (and
// with the other, alternating, for a ratio in one run) and starts a proxy over it in front of server-everything.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT, abArgs } from './lib/ab-args.mjs';
import { EVERYTHING } from './lib/echo-calls.mjs';
import { median } from './lib/stats.mjs';

const values = abArgs({ records: { type: 'string', default: '20000' } }, '3');
const RECORDS = Number(values.records);
const builds = { this: ROOT, ...(values.a ? { a: resolve(values.a) } : {}) };

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-bench-open-'));
try {
  const { ArtifactStore } = await import(join(ROOT, 'dist/artifacts/store.js'));
  const { silentLogger } = await import(join(ROOT, 'dist/logger.js'));
  const options = { dir, maxArtifactBytes: 0, quotaBytes: 0, ttlMs: 0 };
  const filling = new ArtifactStore(options, silentLogger);
  await filling.init();
  const filled = performance.now();
  for (let i = 0; i < RECORDS; i++)
    await filling.put({ data: { bytes: Buffer.from(`artifact ${i} ${'x'.repeat(2000)}`) }, server: 's', tool: 't' });
  filling.close();
  console.log(`${RECORDS} records written in ${((performance.now() - filled) / 1000).toFixed(1)} s`);

  const times = Object.fromEntries(
    Object.keys(builds).map((name) => [name, { open: [], collection: [], initialize: [] }]),
  );
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const [name, root] of Object.entries(builds)) {
      const { open, collection } = await openTime(root);
      const initialize = await initializeTime(root);
      times[name].open.push(open);
      times[name].collection.push(collection);
      times[name].initialize.push(initialize);
      console.log(
        `round ${round} ${name}: store open ${open.toFixed(0)} ms, first collection ${collection.toFixed(0)} ms, ` +
          `initialize answered ${initialize.toFixed(0)} ms`,
      );
    }
  }
  for (const [name, { open, collection, initialize }] of Object.entries(times))
    console.log(
      `${name}: store open median ${median(open).toFixed(0)} ms, first collection median ` +
        `${median(collection).toFixed(0)} ms, initialize answered median ${median(initialize).toFixed(0)} ms`,
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A store of `root`'s build opened over the directory, in a process of its own (nothing cached from the last), and its
 * first collection (nothing expires here: what it costs is looking at the records).
 */
function openTime(root) {
  const script = `const { ArtifactStore } = await import(${JSON.stringify(join(root, 'dist/artifacts/store.js'))});
const { silentLogger } = await import(${JSON.stringify(join(root, 'dist/logger.js'))});
const store = new ArtifactStore({ dir: ${JSON.stringify(dir)}, maxArtifactBytes: 0, quotaBytes: 0, ttlMs: 0 }, silentLogger);
const t = performance.now(); await store.init(); const opened = performance.now(); await store.gc();
process.stdout.write(JSON.stringify({ open: opened - t, collection: performance.now() - opened })); store.close();`;
  return run(process.execPath, ['--input-type=module', '-e', script]).then(JSON.parse);
}

/** From spawning `root`'s proxy over the directory to its answer to `initialize` (the upstream starts meanwhile). */
function initializeTime(root) {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        join(root, 'dist/cli.js'),
        '--log-level',
        'warn',
        '--artifact-dir',
        dir,
        '--',
        process.execPath,
        EVERYTHING,
        'stdio',
      ],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    child.once('error', fail);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`,
    );
    child.stdout.once('data', () => {
      const ms = performance.now() - started;
      child.once('exit', () => done(ms));
      child.stdin.end();
    });
  });
}

function run(command, args) {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? done(out) : fail(new Error(`${command} exited ${code}`))));
  });
}
