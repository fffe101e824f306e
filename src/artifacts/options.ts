import { resolve } from 'node:path';
import type { Config } from '../config/types.js';
import { ArtifactStore } from './store.js';
import type { StoreOptions } from './types.js';

/**
 * Where and how artifacts are kept: --artifact-dir / artifacts.dir, else MCP_OFFLOAD_ARTIFACT_DIR, else
 * (when a `type: abp` server is configured) the ABP bridge's ABP_OUTPUT_DIR, else a per-user temp dir.
 * With `backend: s3` the artifacts go to the bucket and the directory only holds payloads on their way up.
 */
export function storeOptions(
  config: Pick<Config, 'artifacts'> & Partial<Pick<Config, 'servers'>>,
  env: NodeJS.ProcessEnv = process.env,
): StoreOptions {
  const abpOutputDir =
    config.servers?.some((server) => server.kind === 'abp') && env.ABP_OUTPUT_DIR
      ? resolve(env.ABP_OUTPUT_DIR)
      : undefined;
  return {
    dir: config.artifacts.dir ?? (env.MCP_OFFLOAD_ARTIFACT_DIR || abpOutputDir || ArtifactStore.defaultDir()),
    maxArtifactBytes: config.artifacts.maxArtifactBytes,
    quotaBytes: config.artifacts.quotaBytes,
    ttlMs: config.artifacts.ttlHours * 3_600_000,
    ...(config.artifacts.backend === 's3' && config.artifacts.s3 ? { s3: config.artifacts.s3 } : {}),
  };
}
