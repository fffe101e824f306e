#!/usr/bin/env node
// Extraction throughput of mcp-offload's result pipeline alone, in this process (no MCP, no pipes):
// a ResultPipeline from dist/ with default rules and an ArtifactStore in a temp dir, fed one result
// several times. Prints ONE JSON line on stdout.
//
//   node bench/lib/extraction-worker.mjs '<job JSON>'
//
// job:
//   label, root   for messages; the project root (dist/ is imported from there)
//   tmp           a directory for the stores (each run gets a fresh store under it, removed after the run)
//   case          "image":    { content: [{ type: "image", mimeType: "image/png", data: <base64 PNG> }] }
//                 "json":     one text block: JSON.stringify({ name, format: "png", content: <the same base64 PNG> })
//                 "json-pdf": one text block: JSON.stringify({ name, format: "pdf", content: <base64 PDF> })
//                   (huge-json's payload)
//                 "none":     nothing to extract: a 5000-char text block and a small structuredContent
//   mb            decoded payload size in MiB (not for "none")
//   runs          timed runs; calls: calls per run for "none"
//   profile       also one extra, untimed run under the V8 CPU profiler (node:inspector): top self-time functions
//
// output: { ok, base64Chars, ms[] (per run; for "none": per run of `calls` calls), top?: [{ name, where, share }] }
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { topSelfTime } from './cpuprofile.mjs';
import { now } from './measure.mjs';
import { pngChunk as chunk } from '../../test/fixtures/pdf.mjs';

const MiB = 1024 * 1024;
const PATTERN = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const filler = (n) => (n <= 0 ? Buffer.alloc(0) : Buffer.alloc(n, PATTERN));

/** The fixture server's big-image: a 1x1 PNG padded to exactly `bytes` by a private "fiLl" chunk. */
function png(bytes) {
  const head = [
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])),
    chunk('IDAT', deflateSync(Buffer.from([0, 0]))),
  ];
  const tail = chunk('IEND', Buffer.alloc(0));
  const used = head.reduce((n, b) => n + b.length, 0) + 12 + tail.length;
  return Buffer.concat([...head, chunk('fiLl', filler(bytes - used)), tail]);
}

/** The fixture server's big-json-pdf payload: "%PDF-1.4\n" then filler, exactly `bytes`. */
function pdf(bytes) {
  const out = filler(bytes);
  out.write('%PDF-1.4\n', 0, 'latin1');
  return out;
}

/** A fresh result object for the case (the payload string itself is shared between runs). */
function resultMaker(job) {
  const bytes = Math.round(job.mb * MiB);
  if (job.case === 'image') {
    const data = png(bytes).toString('base64');
    return { bytes, chars: data.length, make: () => ({ content: [{ type: 'image', mimeType: 'image/png', data }] }) };
  }
  if (job.case === 'json' || job.case === 'json-pdf') {
    const isPdf = job.case === 'json-pdf';
    const content = (isPdf ? pdf(bytes) : png(bytes)).toString('base64');
    const text = JSON.stringify({ name: 'report', format: isPdf ? 'pdf' : 'png', content });
    return { bytes, chars: content.length, make: () => ({ content: [{ type: 'text', text }] }) };
  }
  if (job.case === 'none') {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(112).slice(0, 5000);
    const structuredContent = {
      status: 'ok',
      count: 3,
      items: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
        { id: 3, name: 'c' },
      ],
    };
    return { bytes: 0, chars: 0, make: () => ({ content: [{ type: 'text', text }], structuredContent }) };
  }
  throw new Error(`unknown case "${job.case}"`);
}

async function main() {
  const job = JSON.parse(process.argv[2] ?? 'null');
  const dist = (path) => import(pathToFileURL(resolve(job.root, 'dist', path)).href);
  const [{ ResultPipeline }, { RuleBook }, { ArtifactStore }, { silentLogger }] = await Promise.all([
    dist('pipeline/pipeline.js'),
    dist('pipeline/rules.js'),
    dist('artifacts/store.js'),
    dist('logger.js'),
  ]);
  const rules = new RuleBook({ pipeline: {}, rules: [], servers: [] });
  const call = { server: 'bench', tool: 'extract', args: {}, owner: 'bench' };
  const { bytes, chars, make } = resultMaker(job);

  /** One run in a fresh store: the time of process() (for "none": of `calls` calls), checked. */
  const oneRun = async (during = (f) => f()) => {
    const dir = mkdtempSync(join(job.tmp, 'store-'));
    try {
      const store = new ArtifactStore({ dir, maxArtifactBytes: 1024 * MiB, quotaBytes: 0, ttlMs: 0 }, silentLogger);
      await store.init();
      const pipeline = new ResultPipeline(rules, store, silentLogger);
      if (job.case === 'none') {
        const inputs = Array.from({ length: job.calls }, make);
        let same = 0;
        const ms = await during(async () => {
          const t0 = now();
          for (const input of inputs) if ((await pipeline.process(input, call)) === input) same++;
          return now() - t0;
        });
        if (same !== job.calls)
          throw new Error(`${job.calls - same} of ${job.calls} results were rewritten; expected none`);
        return ms;
      }
      const input = make();
      let out;
      const ms = await during(async () => {
        const t0 = now();
        out = await pipeline.process(input, call);
        return now() - t0;
      });
      const artifacts = out._meta?.['mcp-offload/artifacts'] ?? [];
      if (artifacts.length !== 1 || artifacts[0].size !== bytes) {
        throw new Error(`expected one artifact of ${bytes} bytes, got ${JSON.stringify(artifacts)}`);
      }
      return ms;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  const ms = [];
  for (let i = 0; i < job.runs; i++) ms.push(await oneRun());
  const out = { ok: true, label: job.label, base64Chars: chars, bytes, ms };
  if (job.profile) {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 }); // µs
    let profile;
    await oneRun(async (f) => {
      await session.post('Profiler.start');
      const r = await f();
      ({ profile } = await session.post('Profiler.stop'));
      return r;
    });
    session.disconnect();
    out.top = topSelfTime(profile, 12, job.root).map(({ name, where, share }) => ({ name, where, share }));
  }
  process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ ok: false, error: error?.stack ?? String(error) })}\n`, () =>
    process.exit(1),
  );
});
