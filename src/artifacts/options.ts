import type { Config } from '../config/types.js';
import { ArtifactStore } from './store.js';
import type { StoreOptions } from './types.js';

/** Where and how artifacts are kept: --artifact-dir / artifacts.dir, else MCP_OFFLOAD_ARTIFACT_DIR, else a per-user temp dir. */
export function storeOptions(config: Pick<Config, 'artifacts'>, env: NodeJS.ProcessEnv = process.env): StoreOptions {
  return {
    dir: config.artifacts.dir ?? (env.MCP_OFFLOAD_ARTIFACT_DIR || ArtifactStore.defaultDir()),
    maxArtifactBytes: config.artifacts.maxArtifactBytes,
    quotaBytes: config.artifacts.quotaBytes,
    ttlMs: config.artifacts.ttlHours * 3_600_000,
  };
}
