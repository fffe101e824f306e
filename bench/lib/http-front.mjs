#!/usr/bin/env node
// server-everything over Streamable HTTP with something in front of it, for the HTTP A/B of the forwarding path:
//
//   node bench/lib/http-front.mjs --front direct|relay|http-relay|offload [--root <checkout>] [--server modern]
//
// direct: nothing in front; relay: a TCP byte relay (the floor for any HTTP proxy process: bytes copied, nothing
// parsed); http-relay: a minimal HTTP proxy (requests parsed as HTTP and JSON, sent on with Node's HTTP client,
// answers streamed back: the floor for a proxy that reads what it forwards); offload: `<root>/dist/cli.js --http
// 127.0.0.1:0 --url <server>`. Prints "front ready <url> pid <pid>" on stderr once the front answers (pid: the
// process whose CPU the front costs: the relays are this one, the proxy its child, none for direct), and stops what
// it started on SIGTERM. `--server modern`: the SDK v2 fixture server (test/fixtures/modern-server.mjs --http <port>, a
// 2026-07-28 server) instead of server-everything.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EVERYTHING } from './echo-calls.mjs';

const { values } = parseArgs({
  options: {
    front: { type: 'string' },
    root: { type: 'string', default: '.' },
    server: { type: 'string', default: 'everything' },
  },
});
const children = [];
/** The server's log and the proxy's artifact directory, removed on the way out. */
const scratch = mkdtempSync(join(tmpdir(), 'mcp-offload-http-front-'));
const stop = () => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

/**
 * Starts a process and resolves with the first match of `pattern` on its stderr or stdout (for mcp-offload, which
 * prints its URL and, at --log-level warn, nothing per call). Once matched, only the last 500 characters are kept.
 */
function started(command, args, env, pattern) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolveMatch, reject) => {
    let seen = '';
    let matched = false;
    const look = (chunk) => {
      if (matched) {
        seen = (seen + chunk).slice(-500);
        return;
      }
      seen += chunk;
      const match = pattern.exec(seen);
      if (!match) return;
      matched = true;
      seen = seen.slice(-500);
      resolveMatch(Object.assign(match, { pid: child.pid }));
    };
    child.stdout.setEncoding('utf8').on('data', look);
    child.stderr.setEncoding('utf8').on('data', look);
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}): ${seen.slice(-500)}`)));
  });
}

/**
 * Starts the server with its output going to a file, and resolves once `port` takes a connection. server-everything
 * writes a line for every POST: read through a pipe, by this process, that cost the relay fronts (which run here) a
 * read and a wake-up a call that the proxy front (a child, with this process otherwise idle) did not pay, and put a
 * fourth busy process beside the proxy front on two cores. No process reads those lines now, whichever the front.
 */
async function listening(command, args, env, port) {
  const log = join(scratch, 'server.log');
  const out = openSync(log, 'w');
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  closeSync(out);
  children.push(child);
  let exited;
  child.once('exit', (code, signal) => (exited = signal ?? code));
  for (const t0 = Date.now(); Date.now() - t0 < 30_000;) {
    if (exited !== undefined) break;
    const open = await new Promise((done) => {
      const probe = net.connect(port, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        done(true);
      });
      probe.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`${command} ${exited === undefined ? 'did not listen' : `exited (${exited})`}: ${tail(log)}`);
}

const tail = (file) => readFileSync(file, 'utf8').slice(-500);

const freePort = () =>
  new Promise((resolvePort) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });

const port = await freePort();
if (values.server === 'modern') {
  await listening(process.execPath, ['test/fixtures/modern-server.mjs', '--http', String(port)], {}, port);
} else {
  await listening(process.execPath, [EVERYTHING, 'streamableHttp'], { PORT: String(port) }, port);
}
const server = `http://127.0.0.1:${port}/mcp`;
let url = server;
let frontPid;
if (values.front === 'relay') {
  const relay = net.createServer((socket) => {
    const upstream = net.connect(port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise((done) => relay.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${relay.address().port}/mcp`;
  frontPid = process.pid;
} else if (values.front === 'http-relay') {
  // The least an HTTP proxy that reads its requests does: each request's body is parsed and written again, sent on
  // with Node's HTTP client over kept-alive connections, and the answer's status, headers and bytes streamed back.
  const agent = new http.Agent({ keepAlive: true });
  const relay = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.length ? JSON.stringify(JSON.parse(raw.toString('utf8'))) : undefined;
      const headers = { ...req.headers, host: `127.0.0.1:${port}` };
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const out = http.request(
        { host: '127.0.0.1', port, path: req.url, method: req.method, headers, agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
  await new Promise((done) => relay.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${relay.address().port}/mcp`;
  frontPid = process.pid;
} else if (values.front === 'offload') {
  const cli = join(resolve(values.root), 'dist/cli.js');
  const tmp = join(scratch, 'artifacts');
  mkdirSync(tmp);
  const args = [cli, '--log-level', 'warn', '--artifact-dir', tmp, '--http', '127.0.0.1:0', '--url', server];
  const ready = await started(process.execPath, args, {}, /mcp-offload listening on (\S+)/);
  url = ready[1];
  frontPid = ready.pid;
} else if (values.front !== 'direct') {
  process.stderr.write('usage: http-front.mjs --front direct|relay|http-relay|offload [--root <checkout>]\n');
  process.exit(2);
}
process.stderr.write(`front ready ${url}${frontPid ? ` pid ${frontPid}` : ''}\n`);
