#!/usr/bin/env node
// One measurement in a fresh process: connect an MCP client to a freshly spawned process (a server
// or the proxy), make the job's calls, read peak memory, close, and print ONE JSON line on stdout.
//
//   node bench/lib/worker.mjs '<job JSON>'
//
// job:
//   label         for messages
//   spawn         { command, args, cwd? }: the process the client starts (env: this process's env)
//   transport     "sdk"    the SDK's StdioClientTransport (its ReadBuffer is quadratic in the message size)
//                 "wire"   mcp-offload's own stdio reader: its ProcessWire from dist/ (bench/lib/wire-transport.mjs),
//                          whose reader is linear in the message size; needs `npm run build`
//   maxBufferSize SDK transport read limit in bytes (default 1 GiB)
//   calls         [{ name, arguments?, timeoutMs?, repeat? }]: made in order; the first is the first
//                 request after initialize (the client's connect() does initialize only)
//   upstreamPid   "child": the spawned process is the server itself;
//                 "pid-tool": after the calls, call the server's `pid` tool (through the proxy) to find it
//
// output: { ok: true, childPid, connectMs,
//           calls: [{ name, ms[], bytesIn[], responseBytes[], otherMessages[], result }],
//           memory: { client: {peakRss, rss}, child: {...}, upstream: {...}, clientAfterConnect: {...} },
//           upstreamPid }
//   ms        callTool() call to resolution (the SDK client parses and validates the result in between)
//   bytesIn   bytes the transport read from the child's stdout between the call and its resolution
//   responseBytes the length of the response's line on the wire, with its newline
//   otherMessages  [{ kind, bytes }]: notifications or requests that arrived in the same window
//   result    a summary of the last result: per block type, mimeType, lengths, uri/size of links, and how many
//             artifacts mcp-offload lists in _meta["mcp-offload/artifacts"]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { killDescendants } from './cleanup.mjs';
import { now, procMemory } from './measure.mjs';
import { wireTransport } from './wire-transport.mjs';

const GiB = 1024 ** 3;
const STDERR_TAIL = 30;
const stderrTail = [];
const keepStderr = (line) => {
  if (!line.trim()) return;
  stderrTail.push(line);
  if (stderrTail.length > STDERR_TAIL) stderrTail.shift();
  if (process.env.BENCH_VERBOSE) process.stderr.write(`[child] ${line}\n`);
};

async function makeTransport(job) {
  const { command, args = [], cwd } = job.spawn;
  if ((job.transport ?? 'sdk') === 'sdk') {
    const transport = new StdioClientTransport({
      command,
      args,
      cwd,
      env: { ...process.env },
      stderr: 'pipe',
      maxBufferSize: job.maxBufferSize ?? GiB,
    });
    // Drain stderr (a PassThrough nobody reads would stall the child once the pipe fills).
    let partial = '';
    transport.stderr.setEncoding('utf8').on('data', (s) => {
      const lines = (partial + s).split('\n');
      partial = lines.pop();
      lines.forEach(keepStderr);
    });
    return { transport, stdout: () => transport._process?.stdout };
  }
  if (job.transport === 'wire') {
    return wireTransport({ command, args, cwd, env: { ...process.env }, onStderr: keepStderr });
  }
  throw new Error(`unknown transport "${job.transport}"`);
}

/** A small, JSON-friendly description of a CallToolResult (never the payload itself). */
function summarizeResult(result) {
  return {
    isError: result.isError === true,
    jsonLength: JSON.stringify(result).length,
    artifacts: result._meta?.['mcp-offload/artifacts']?.length ?? 0,
    blocks: (result.content ?? []).map((b) => ({
      type: b.type,
      mimeType: b.mimeType ?? b.resource?.mimeType,
      ...(typeof b.data === 'string' && { dataLength: b.data.length }),
      ...(typeof b.text === 'string' && { textLength: b.text.length, textHead: b.text.slice(0, 300) }),
      ...(b.type === 'resource_link' && { uri: b.uri, size: b.size }),
      ...(b.resource && {
        uri: b.resource.uri,
        blobLength: b.resource.blob?.length,
        textLength: b.resource.text?.length,
      }),
    })),
  };
}

async function main() {
  const job = JSON.parse(process.argv[2] ?? 'null');
  if (!job?.spawn?.command) throw new Error('usage: worker.mjs \'{"spawn":{"command":...},"calls":[...]}\'');
  const { transport, stdout } = await makeTransport(job);
  const client = new Client({ name: 'mcp-offload-bench', version: '0.0.0' }, { capabilities: {} });
  const out = { ok: true, label: job.label, calls: [], memory: {} };
  try {
    const t0 = now();
    await client.connect(transport);
    out.connectMs = now() - t0;
    out.childPid = transport.pid ?? undefined;
    out.memory.clientAfterConnect = procMemory();

    // Count what arrives on the child's stdout: all bytes, and the length of each line (= message).
    const stream = stdout();
    if (!stream) throw new Error("cannot reach the transport's stdout to count bytes");
    let bytesIn = 0;
    let lineBytes = 0;
    const lineLengths = [];
    stream.on('data', (chunk) => {
      bytesIn += chunk.length;
      let start = 0;
      let nl;
      while ((nl = chunk.indexOf(10, start)) !== -1) {
        lineLengths.push(lineBytes + nl - start + 1); // with its newline
        lineBytes = 0;
        start = nl + 1;
      }
      lineBytes += chunk.length - start;
    });
    // ...and what kind of message each one was (the transport hands them over in order).
    const kinds = [];
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      kinds.push('method' in message ? message.method : 'error' in message ? 'error' : 'response');
      onmessage?.call(transport, message, extra);
    };

    for (const call of job.calls ?? []) {
      const record = { name: call.name, ms: [], bytesIn: [], responseBytes: [], otherMessages: [] };
      for (let i = 0; i < (call.repeat ?? 1); i++) {
        const [b0, l0, k0] = [bytesIn, lineLengths.length, kinds.length];
        const start = now();
        const result = await client.callTool({ name: call.name, arguments: call.arguments ?? {} }, undefined, {
          timeout: call.timeoutMs ?? 600_000,
        });
        record.ms.push(now() - start);
        record.bytesIn.push(bytesIn - b0);
        const lines = lineLengths.slice(l0);
        const got = kinds.slice(k0);
        const r = got.lastIndexOf('response');
        record.responseBytes.push(lines.length === got.length && r !== -1 ? lines[r] : undefined);
        record.otherMessages.push(
          got.map((kind, j) => ({ kind, bytes: lines[j] })).filter((m) => m.kind !== 'response'),
        );
        record.result = summarizeResult(result);
      }
      out.calls.push(record);
    }

    if (job.upstreamPid === 'child') out.upstreamPid = out.childPid;
    if (job.upstreamPid === 'pid-tool') {
      const r = await client.callTool({ name: 'pid', arguments: {} }, undefined, { timeout: 60_000 });
      out.upstreamPid = Number(r.content?.[0]?.text);
    }
    // Peaks just before closing: VmHWM only ever grows, so this is the peak of the whole run.
    if (out.upstreamPid) out.memory.upstream = procMemory(out.upstreamPid);
    if (out.childPid) out.memory.child = procMemory(out.childPid);
    out.memory.client = procMemory();
  } catch (error) {
    out.ok = false;
    out.error = error?.message ?? String(error);
    out.stderrTail = [...stderrTail];
  } finally {
    await client.close().catch(() => {});
    // Anything the child left behind (the proxy's upstream runs in its own process group).
    out.leftBehind = killDescendants(process.pid);
  }
  finish(out);
}

/** Prints the one result line and exits (a stray handle must not keep the worker alive). */
function finish(out) {
  process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(out.ok ? 0 : 1));
}

main().catch((error) => {
  killDescendants(process.pid);
  finish({ ok: false, error: error?.stack ?? String(error), stderrTail });
});
