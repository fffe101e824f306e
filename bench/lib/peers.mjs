// Other proxies the benchmark measures next to mcp-offload live in bench/peers, a package of its own
// with its own lock file: they are not the project's dependencies (mcp-proxy pulls pipenet, which asks
// for Node >= 22, and would warn on every `npm install` of ours). Installed on first use.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const PEERS_DIR = 'bench/peers';

/** The path (relative to the repository root) of a peer's file, installing the peers first if needed. */
export function peerPath(root, relativePath, log = () => {}) {
  const path = join(PEERS_DIR, 'node_modules', relativePath);
  if (!existsSync(join(root, path))) {
    log(`installing the benchmark's peer proxies into ${PEERS_DIR} (npm ci)`);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: join(root, PEERS_DIR),
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  return path;
}
