// Runs one measurement in a fresh worker process (bench/lib/worker.mjs), so the numbers of one run
// (the client's peak RSS above all) are not mixed with the orchestrator's or another run's.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killTree, trackProcess, untrackProcess } from './cleanup.mjs';

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const STDERR_TAIL = 40;

/**
 * Starts `node bench/lib/worker.mjs <job as JSON>` (or another worker script: `script`, a path or
 * a file name in bench/lib/) and resolves with the JSON object the worker prints as its last stdout
 * line. Rejects (after killing the worker's whole process tree) when the worker fails, prints no
 * result, or takes longer than timeoutMs.
 */
export function runWorker(job, { timeoutMs = 15 * 60_000, cwd, nodeArgs = [], verbose = false, script = WORKER } = {}) {
  return new Promise((resolve, reject) => {
    const path = script.includes('/') ? script : fileURLToPath(new URL(`./${script}`, import.meta.url));
    const child = spawn(process.execPath, [...nodeArgs, path, JSON.stringify(job)], {
      cwd,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    trackProcess(child.pid);
    let stdout = '';
    const stderrTail = [];
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (s) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s) => {
      if (verbose) process.stderr.write(s);
      const lines = (partial + s).split('\n');
      partial = lines.pop();
      stderrTail.push(...lines.filter((l) => l.trim()));
      if (stderrTail.length > STDERR_TAIL) stderrTail.splice(0, stderrTail.length - STDERR_TAIL);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid);
    }, timeoutMs);
    const tail = () =>
      [...stderrTail, partial]
        .filter(Boolean)
        .map((l) => `    ${l}`)
        .join('\n');
    child.once('error', (error) => {
      clearTimeout(timer);
      untrackProcess(child.pid);
      reject(new Error(`could not start the worker: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // The worker closes its clients itself; whatever is left of its tree goes now.
      killTree(child.pid);
      untrackProcess(child.pid);
      const last = stdout.trim().split('\n').pop();
      let result;
      try {
        result = last ? JSON.parse(last) : undefined;
      } catch {
        result = undefined;
      }
      const where = `worker for "${job.label ?? 'job'}"`;
      if (timedOut) return reject(new Error(`${where} took longer than ${timeoutMs} ms and was killed\n${tail()}`));
      if (result && result.ok === false) {
        return reject(new Error(`${where} failed: ${result.error}\n${tail()}`));
      }
      if (code !== 0 || !result) {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        return reject(new Error(`${where} ${how}${result ? '' : ' without printing a result'}\n${tail()}`));
      }
      resolve(result);
    });
  });
}
