// Everything a benchmark run must undo, even when it fails: child process trees and temp dirs.
// Used by the orchestrator; killAll()/removeAllTempDirs() are synchronous so they also work in
// an 'exit' handler.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const roots = new Set(); // pids whose whole process tree we own
const tempDirs = new Set();

/** The pids of every descendant of pid (children, grandchildren, ...), from /proc. Linux only. */
export function descendants(pid) {
  const children = new Map();
  let entries;
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  for (const entry of entries) {
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Field 2 (comm) is in parentheses and may contain spaces; ppid is the 2nd field after it.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(entry));
  }
  const out = [];
  const queue = [pid];
  while (queue.length) {
    for (const child of children.get(queue.shift()) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/**
 * SIGKILLs pid and all its descendants. The tree is collected first, so processes in their own
 * process group (the proxy starts each upstream detached) are found before they are orphaned.
 */
export function killTree(pid) {
  const all = [...descendants(pid), pid];
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return all.length;
}

/** SIGKILLs every descendant of pid (not pid itself); returns how many there were. */
export function killDescendants(pid) {
  const all = descendants(pid);
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return all.length;
}

export function trackProcess(pid) {
  roots.add(pid);
}

export function untrackProcess(pid) {
  roots.delete(pid);
}

/** Kills every tracked tree; returns how many were still tracked. */
export function killAll() {
  const n = roots.size;
  for (const pid of roots) killTree(pid);
  roots.clear();
  return n;
}

/** A fresh directory under the OS temp dir, removed by removeTempDir() or removeAllTempDirs(). */
export function makeTempDir(prefix = 'mcp-offload-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

export function removeAllTempDirs() {
  for (const dir of [...tempDirs]) {
    try {
      removeTempDir(dir);
    } catch {
      // Best effort.
    }
  }
}
