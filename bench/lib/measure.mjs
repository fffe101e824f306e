// Measurement helpers: process memory and CPU time from /proc, and a monotonic clock.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export const now = () => performance.now();

/**
 * Memory fields of /proc/<pid>/status, in bytes: { peakRss (VmHWM), rss (VmRSS) }.
 * Returns undefined when the process is gone or /proc is not there (non-Linux).
 */
export function procMemory(pid = 'self') {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name) => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  return { peakRss: field('VmHWM'), rss: field('VmRSS') };
}

let clockTicks;
/**
 * CPU time (user + system) the process has used so far, in ms, from /proc/<pid>/stat (10 ms
 * resolution at the usual 100 ticks a second). Undefined when the process is gone or not Linux.
 */
export function procCpuMs(pid = 'self') {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  // Fields after the parenthesized comm: state is the 1st, utime the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}
