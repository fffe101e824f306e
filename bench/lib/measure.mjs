// Measurement helpers: process memory from /proc and a monotonic clock.
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
