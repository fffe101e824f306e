// Real MCP servers nobody here wrote, from npm (devDependencies): what users put behind the proxy.
import { createRequire } from 'node:module';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NODE } from './fixtures.js';

const require = createRequire(import.meta.url);

function entry(pkg: string): string {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
}

export const FILESYSTEM_ENTRY = entry('@modelcontextprotocol/server-filesystem');
export const MEMORY_ENTRY = entry('@modelcontextprotocol/server-memory');

/** A fresh directory for server-filesystem to serve (real path: the server resolves symlinks). */
export function filesystemRoot(): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), 'mcp-offload-fsroot-')));
}

/** server-filesystem serving `root`, as a server of testConfig. */
export const filesystem = (root: string, name = 'filesystem') => ({
  name,
  command: NODE,
  args: [FILESYSTEM_ENTRY, root],
});

/** server-memory keeping its graph in `file`, as a server of testConfig. */
export const memory = (file: string, name = 'memory') => ({
  name,
  command: NODE,
  args: [MEMORY_ENTRY],
  env: { MEMORY_FILE_PATH: file },
});
