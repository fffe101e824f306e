// Plays one scenario through one build of the proxy over one downstream transport, and returns what each side
// received: the client's entries (client.mjs) and the scripted upstream's (scripted-server.mjs), both raw.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpClient, sseClient, stdioClient } from './client.mjs';
import { matches } from './match.mjs';

const SERVER = fileURLToPath(new URL('./scripted-server.mjs', import.meta.url));
/** How long one step may wait before the scenario fails. */
export const STEP_TIMEOUT_MS = 10_000;
/** After the last step, how long both sides must stay quiet before the session is closed. */
const QUIET_MS = 250;

/** Starts a child process and collects its stderr; `ready` resolves with the first match of `readyPattern`. */
function start(command, args, { env, readyPattern, readyStream = 'stderr' } = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s) => (stderr += s));
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  let ready;
  if (readyPattern) {
    ready = new Promise((resolve, reject) => {
      let seen = '';
      const stream = readyStream === 'stderr' ? child.stderr : child.stdout;
      stream.setEncoding('utf8').on('data', (s) => {
        seen += s;
        const m = readyPattern.exec(seen);
        if (m) resolve(m[1]);
      });
      void exited.then(() => reject(new Error(`${args[0]} exited before it was ready; stderr:\n${stderr}`)));
      const timer = setTimeout(
        () => reject(new Error(`${args[0]} not ready after ${STEP_TIMEOUT_MS} ms:\n${stderr}`)),
        STEP_TIMEOUT_MS,
      );
      timer.unref();
    });
  }
  const stop = async (graceMs = 3000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(kill);
    }
  };
  return { child, ready, exited, stop, stderr: () => stderr };
}

/** The upstream's record file as transcript entries: a stdio line as is, an HTTP request as its head, \n, body. */
function upstreamEntries(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .map((entry) => (entry.kind === 'http' ? `${entry.head}${entry.text ? `\n${entry.text}` : ''}` : entry.text));
}

/** Waits until `count()` has not changed for `ms`. */
async function quiet(count, ms = QUIET_MS) {
  let last = -1;
  for (;;) {
    const now = count();
    if (now === last) return;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/** Waits until `count()` is above zero (at most STEP_TIMEOUT_MS), then quiet for as long as a loaded machine needs. */
async function settled(count) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (count() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await quiet(count, 4 * QUIET_MS);
}

/**
 * Plays `scenario` through `node <cli>` over `transport` ('stdio', 'http' or 'sse'). Returns
 * { client: string[], upstream: string[], tempDir } (raw; the artifact directory is in tempDir, removed by
 * then), or throws with what went wrong.
 */
export async function play(cli, scenario, transport) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-differential-'));
  const artifactDir = join(dir, 'artifacts');
  const scriptFile = join(dir, 'script.json');
  const recordFile = join(dir, 'upstream.jsonl');
  writeFileSync(scriptFile, JSON.stringify({ http: scenario.upstream.http, rules: scenario.upstream.rules }));
  const serverArgs = [SERVER, '--script', scriptFile, '--record', recordFile];
  const processes = [];
  const where = `${scenario.name} (${transport})`;
  try {
    let upstreamArgs;
    if (scenario.upstream.transport === 'http') {
      const upstream = start(process.execPath, [...serverArgs, '--http', '0'], {
        readyPattern: /listening (\S+)/,
        readyStream: 'stdout',
      });
      processes.push(upstream);
      upstreamArgs = ['--url', await upstream.ready];
    } else {
      upstreamArgs = ['--', process.execPath, ...serverArgs];
    }
    const downstream = transport === 'stdio' ? [] : ['--http', '127.0.0.1:0'];
    const proxy = start(
      process.execPath,
      [cli, '--log-level', 'error', '--name', 'scripted', ...downstream, ...upstreamArgs],
      {
        env: { MCP_OFFLOAD_ARTIFACT_DIR: artifactDir },
        readyPattern: transport === 'stdio' ? undefined : /mcp-offload listening on (\S+)/,
      },
    );
    processes.unshift(proxy);
    let client;
    if (transport === 'stdio') client = stdioClient(proxy.child);
    else {
      const url = new URL(await proxy.ready);
      if (transport === 'http') client = httpClient(new URL('/mcp', url).href, { modern: scenario.client?.modern });
      else client = await sseClient(url.origin, STEP_TIMEOUT_MS);
    }
    // Over HTTP the proxy listens while it still opens its own upstream session; a client that came in at once
    // would interleave its upstream session with that handshake, in an order that changes from run to run.
    if (transport !== 'stdio') await settled(() => upstreamEntries(recordFile).length);
    const ctx = {};
    for (const [index, step] of scenario.steps.entries()) {
      try {
        await runStep(step, ctx, client, recordFile);
      } catch (error) {
        throw new Error(
          `${where}: step ${index + 1} (${describe(step)}): ${error.message}\nproxy stderr:\n${proxy.stderr().slice(-2000)}`,
          { cause: error },
        );
      }
    }
    await quiet(() => client.entries().length + upstreamEntries(recordFile).length);
    await client.close();
    if (transport === 'stdio') {
      const exit = await Promise.race([proxy.exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (!exit) throw new Error(`${where}: the proxy did not exit within 5 s of the end of its stdin`);
    }
    await proxy.stop();
    for (const other of processes.slice(1)) await other.stop();
    return { client: client.entries(), upstream: upstreamEntries(recordFile), tempDir: dir };
  } finally {
    await Promise.all(processes.map((p) => p.stop(500)));
    rmSync(dir, { recursive: true, force: true });
  }
}

function describe(step) {
  if (step.what) return step.what;
  if (step.send) return typeof step.send === 'string' ? `send ${step.send.slice(0, 80)}` : 'send';
  if (step.expect) return `expect ${JSON.stringify(step.expect)}`;
  if (step.upstream) return `upstream received ${JSON.stringify(step.upstream)}`;
  return JSON.stringify(step);
}

async function runStep(step, ctx, client, recordFile) {
  if (step.send !== undefined) {
    await client.send(typeof step.send === 'function' ? step.send(ctx) : step.send);
  } else if (step.expect !== undefined) {
    const item = await client.inbox.claim(step.expect, STEP_TIMEOUT_MS, step.what);
    if (step.as) ctx[step.as] = { ...item, idText: JSON.stringify(item.message.id) };
  } else if (step.upstream !== undefined) {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    const seen = () =>
      upstreamEntries(recordFile).some((text) => {
        try {
          return matches(JSON.parse(text.slice(text.indexOf('{'))), step.upstream);
        } catch {
          return false;
        }
      });
    while (!seen()) {
      if (Date.now() > deadline) throw new Error(`the upstream received no ${JSON.stringify(step.upstream)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } else throw new Error(`unknown step ${JSON.stringify(step)}`);
}
