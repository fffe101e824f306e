#!/usr/bin/env node
// A large payload into an S3 bucket through the store (artifacts.backend: s3), and back: how long, and how
// much memory the storing process needs. The README says a 500 MB result is never held whole; this is
// where that is measured, since a test of it would be too slow for the suite.
//
//   npm run build && node bench/s3-large-upload.mjs [MB=500]
//
// s3rver (the tests' S3 server) runs in a child process over a temp directory, so the peak RSS printed is
// the store's own: writing the pieces to the tmp file, hashing, the multipart upload, the read back.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { ArtifactStore } from '../dist/artifacts/store.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const MB = Number(process.argv[2] ?? 500);
const MiB = 1024 * 1024;
const PART = 8 * MiB;
const CONCURRENCY = 4;

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-bench-s3-'));
const server = spawn(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `import S3rver from 's3rver';
     const s = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(join(dir, 's3'))},
       configureBuckets: [{ name: 'bench', configs: [] }] });
     const { port } = await s.run();
     process.stdout.write(port + '\\n');`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'], cwd: new URL('..', import.meta.url).pathname },
);
const port = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(Number(String(d).trim()))));

const store = new ArtifactStore(
  {
    dir: join(dir, 'gateway'),
    maxArtifactBytes: 0,
    quotaBytes: 0,
    ttlMs: 0,
    s3: {
      bucket: 'bench',
      prefix: '',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      partSizeBytes: PART,
      uploadConcurrency: CONCURRENCY,
    },
  },
  pino({ level: 'warn' }),
);

try {
  await store.init();
  const baseline = process.memoryUsage().rss;
  // The payload as the stdio reader hands it over: 1 MiB pieces produced one by one, never the whole.
  const expected = createHash('sha256');
  const pieces = function* () {
    for (let i = 0; i < MB; i++) {
      const piece = Buffer.alloc(MiB, i & 0xff);
      expected.update(piece);
      yield piece;
    }
  };
  let t = performance.now();
  const record = await store.put({ data: { pieces: { size: MB * MiB, pieces } }, server: 'bench', tool: 'big' });
  const putMs = performance.now() - t;
  t = performance.now();
  const back = createHash('sha256');
  for await (const chunk of await store.createReadStream(record.id)) back.update(chunk);
  const readMs = performance.now() - t;
  const same = back.digest('hex') === expected.digest('hex') && record.size === MB * MiB;
  const peak = process.resourceUsage().maxRSS * 1024;
  const rows = [
    ['payload', `${MB} MiB`],
    ['part size × concurrency', `${PART / MiB} MiB × ${CONCURRENCY}`],
    ['put (tmp file, hash, multipart upload)', `${(putMs / 1000).toFixed(1)} s`],
    ['read back (streamed, hashed)', `${(readMs / 1000).toFixed(1)} s`],
    ['process RSS before the put', `${Math.round(baseline / MiB)} MiB`],
    ['peak RSS of the process', `${Math.round(peak / MiB)} MiB`],
    ['bytes identical', same ? 'yes' : 'NO'],
  ];
  for (const [what, value] of rows) process.stdout.write(`${what.padEnd(42)} ${value}\n`);
  if (!same) process.exitCode = 1;
} finally {
  store.close();
  server.kill();
  rmSync(dir, { recursive: true, force: true });
}
