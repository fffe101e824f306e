// Facts about the machine a benchmark ran on.
import os from 'node:os';
import { readFileSync } from 'node:fs';

export function machineFacts() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    cpuCount: cpus.length,
    availableParallelism: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    totalMemory: os.totalmem(),
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.arch()}`,
    kernel: os.release(),
    os: osName(),
  };
}

/** The distribution's PRETTY_NAME on Linux, else os.version(). */
function osName() {
  try {
    const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (m) return m[1];
  } catch {
    // Not Linux, or no os-release.
  }
  return typeof os.version === 'function' ? os.version() : 'unknown';
}

/** Markdown bullet list of the facts. */
export function machineMarkdown(f, formatBytes) {
  return [
    `- CPU: ${f.cpuModel} × ${f.cpuCount} (os.cpus(); available parallelism ${f.availableParallelism})`,
    `- Memory: ${formatBytes(f.totalMemory)} total`,
    `- Node.js: ${f.node} (V8 ${f.v8})`,
    `- Platform: ${f.platform}, kernel ${f.kernel}${f.os ? ` (${f.os})` : ''}`,
  ].join('\n');
}
