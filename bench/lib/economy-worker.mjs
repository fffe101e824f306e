#!/usr/bin/env node
// The context-economy group's worker: one server's scripted calls (bench/scenarios/context-economy.mjs, SERVERS),
// made directly and through the proxy, measured. Prints ONE JSON line on stdout.
//
//   node bench/lib/economy-worker.mjs '<job JSON>'
//
// job: { label, root (the checkout: dist/cli.js), tmp (a folder of its own), server (a SERVERS name),
//        chromium (path, for the browser servers), tall (px), client (clientInfo.name),
//        transport ("wire": the client reads over mcp-offload's ProcessWire, bench/lib/wire-transport.mjs; "sdk": over
//        the SDK's StdioClientTransport, whose reader is quadratic in the message size: 45 s for a 28 MB screenshot) }
// output: { ok, ms: { direct, proxy }, calls: [row] }, a row as the group's columns read it: label, tool, ms: { direct,
//   proxy } (the call's own time, from callTool to its answer), directBytes,
//   proxyBytes, ratio, kept, artifacts, stored [{ mimeType, size, source }], artifactSent [bytes as sent], tiny
//   [{ source, sent }], previews [{ format, gray, width, height, base64, of? }], inlineImages, grew, note?, error?
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { killDescendants } from './cleanup.mjs';
import { makeDatabase, makeProject, startSite } from './economy-fixtures.mjs';
import { now } from './measure.mjs';
import { wireTransport } from './wire-transport.mjs';
import { FLOOR, SERVERS } from '../scenarios/context-economy.mjs';

const GiB = 1024 ** 3;
const ARTIFACTS = 'mcp-offload/artifacts';
const STDERR_TAIL = 30;
const stderrTail = [];

/** An artifact's payload as the server sent it: text as its UTF-8 bytes, anything else as base64. */
const TEXTUAL = /^text\/|[/+](json|xml|yaml|javascript|csv)\b/i;
const sentBytes = (artifact) =>
  TEXTUAL.test(artifact.mimeType ?? '') ? artifact.size : 4 * Math.ceil(artifact.size / 3);

const digest = (s) => createHash('sha256').update(s).digest('hex');

const keepStderr = (line) => {
  if (!line.trim()) return;
  stderrTail.push(line);
  if (stderrTail.length > STDERR_TAIL) stderrTail.shift();
  if (process.env.BENCH_VERBOSE) process.stderr.write(`[child] ${line}\n`);
};

/**
 * Connects an SDK v1 client to `command` over `kind` of transport ("wire": mcp-offload's own stdio reader, linear in
 * the message size; "sdk": the SDK's StdioClientTransport); every response is kept as it arrived (before the SDK's
 * schemas read it).
 */
async function connect(job, command, args, env) {
  let transport;
  if (job.transport === 'sdk') {
    transport = new StdioClientTransport({
      command,
      args,
      env: { ...process.env, ...env },
      stderr: 'pipe',
      maxBufferSize: GiB,
    });
    let partial = '';
    transport.stderr.setEncoding('utf8').on('data', (s) => {
      const lines = (partial + s).split('\n');
      partial = lines.pop();
      lines.forEach(keepStderr);
    });
  } else {
    ({ transport } = await wireTransport({
      root: job.root,
      command,
      args,
      env: { ...process.env, ...env },
      onStderr: keepStderr,
    }));
  }
  const client = new Client({ name: job.client, version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const raw = new Map();
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('id' in message && ('result' in message || 'error' in message)) raw.set(message.id, message);
    onmessage?.call(transport, message, extra);
  };
  return { client, raw };
}

/** The calls of `server`, each as { call, result (the raw JSON-RPC result) | error }. */
async function runCalls(job, server, spawn, env) {
  const [command, ...args] = spawn;
  const { client, raw } = await connect(job, command, args, server.env?.(env) ?? {});
  const out = [];
  try {
    for (const call of server.calls) {
      const args = typeof call.args === 'function' ? call.args(env) : (call.args ?? {});
      const before = new Set(raw.keys());
      const t0 = now();
      try {
        await client.callTool({ name: call.tool, arguments: args }, undefined, { timeout: call.timeoutMs ?? 60_000 });
        const id = [...raw.keys()].find((k) => !before.has(k));
        out.push({ result: raw.get(id)?.result, ms: now() - t0 });
      } catch (error) {
        out.push({ error: error?.message ?? String(error), ms: now() - t0 });
      }
      for (const id of raw.keys()) raw.delete(id);
    }
  } finally {
    await client.close().catch(() => {});
  }
  return out;
}

/** The image blocks of a result: MIME type, base64 length, a digest of the data, dimensions. */
async function imagesOf(result) {
  const out = [];
  for (const block of result?.content ?? []) {
    if (block.type !== 'image' || typeof block.data !== 'string') continue;
    const meta = await sharp(Buffer.from(block.data, 'base64'))
      .metadata()
      .catch(() => ({}));
    out.push({
      mimeType: block.mimeType,
      format: meta.format ?? block.mimeType,
      gray: meta.channels === 1 || meta.channels === 2,
      width: meta.width,
      height: meta.height,
      base64: block.data.length,
      digest: digest(block.data),
    });
  }
  return out;
}

/** The dimensions of a stored image, read from the file the proxy wrote (stdio: `_meta` names its path). */
async function storedDimensions(artifact) {
  if (!artifact?.path || !artifact.mimeType?.startsWith('image/')) return undefined;
  try {
    const meta = await sharp(readFileSync(artifact.path), { limitInputPixels: false }).metadata();
    return { width: meta.width, height: meta.height };
  } catch {
    return undefined;
  }
}

/** One row of the table: the call's two results compared. */
async function compare(call, direct, proxy) {
  const row = { tool: call.tool, label: call.label ?? call.tool, ms: { direct: direct.ms, proxy: proxy.ms } };
  if (direct.error || proxy.error || !direct.result || !proxy.result) {
    row.error = direct.error ?? proxy.error ?? 'no result';
    return row;
  }
  const directJson = JSON.stringify(direct.result);
  const proxyJson = JSON.stringify(proxy.result);
  row.directBytes = Buffer.byteLength(directJson);
  row.proxyBytes = Buffer.byteLength(proxyJson);
  row.ratio = row.proxyBytes / row.directBytes;
  row.grew = row.proxyBytes > row.directBytes;
  const artifacts = proxy.result._meta?.[ARTIFACTS] ?? [];
  row.artifacts = artifacts.length;
  row.kept = directJson === proxyJson ? 'as sent' : artifacts.length ? 'rewritten' : 'differs';
  row.stored = artifacts.map(({ mimeType, size, source }) => ({ mimeType, size, source }));
  row.artifactSent = artifacts.map(sentBytes);
  row.tiny = artifacts.filter((a) => sentBytes(a) < FLOOR).map((a) => ({ source: a.source, sent: sentBytes(a) }));

  const directImages = await imagesOf(direct.result);
  const proxyImages = await imagesOf(proxy.result);
  const sent = new Set(directImages.map((i) => i.digest));
  const storedImages = artifacts.filter((a) => a.mimeType?.startsWith('image/'));
  row.inlineImages = proxyImages.filter((i) => sent.has(i.digest)).length;
  row.previews = [];
  for (const [n, image] of proxyImages.filter((i) => !sent.has(i.digest)).entries()) {
    const { digest: _, mimeType: __, ...shown } = image;
    const of = await storedDimensions(storedImages[n]);
    row.previews.push({ ...shown, ...(of && { of }) });
  }
  if (row.kept === 'differs')
    row.note =
      'nothing stored, but the two runs differ: the server answers differently each time (a time, a file name)';
  if (direct.result.isError) row.note = `the server answered with an error: ${text(direct.result).slice(0, 160)}`;
  if (call.tall && !row.previews.length) row.note = `no preview of the tall page: ${text(proxy.result).slice(0, 200)}`;
  return row;
}

const text = (result) =>
  (result?.content ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join(' ');

async function main() {
  const job = JSON.parse(process.argv[2] ?? 'null');
  const server = SERVERS.find((s) => s.name === job?.server);
  if (!server) throw new Error(`unknown server "${job?.server}"`);
  const env = { root: join(job.tmp, 'project'), chromium: job.chromium, tall: job.tall };
  mkdirSync(env.root, { recursive: true });
  if (server.name === 'filesystem') env.project = await makeProject(env.root);
  if (server.name === 'sqlite') {
    env.db = join(job.tmp, 'shop.db');
    await makeDatabase(env.db);
  }
  const site = server.browser ? await startSite() : undefined;
  env.base = site?.base;
  const cli = resolve(job.root, 'dist', 'cli.js');
  const results = {};
  const ms = {};
  try {
    for (const mode of ['direct', 'proxy']) {
      // Folders of one length: a path a server writes into its answer (@playwright/mcp's files) counts the same.
      const modeEnv = { ...env, modeDir: join(job.tmp, mode === 'direct' ? 'run-1' : 'run-2') };
      mkdirSync(modeEnv.modeDir, { recursive: true });
      const command = server.command(modeEnv);
      const spawn =
        mode === 'direct'
          ? command
          : [
              process.execPath,
              cli,
              '--log-level',
              'warn',
              '--artifact-dir',
              join(job.tmp, 'artifacts'),
              '--',
              ...command,
            ];
      const t0 = now();
      results[mode] = await runCalls(job, server, spawn, modeEnv);
      ms[mode] = now() - t0;
    }
    const calls = [];
    for (const [n, call] of server.calls.entries())
      calls.push(await compare(call, results.direct[n], results.proxy[n]));
    finish({ ok: true, label: job.label, ms, calls });
  } finally {
    await site?.close();
  }
}

/** Prints the one result line and exits (a stray handle must not keep the worker alive). */
function finish(out) {
  killDescendants(process.pid);
  process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(out.ok ? 0 : 1));
}

main().catch((error) => finish({ ok: false, error: `${error?.stack ?? String(error)}\n${stderrTail.join('\n')}` }));
