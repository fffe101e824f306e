import { resolve } from 'node:path';
import type { Logger } from '../logger.js';
import type { ArtifactBackend } from './backend.js';
import { LocalBackend } from './local-backend.js';
import type { StoreOptions } from './types.js';

/**
 * `artifacts.backend`: a bucket when `s3` options are given, else the directory. The AWS SDK is loaded only
 * for a bucket: importing it costs 150 to 350 ms at startup, which a proxy keeping files on disk never pays.
 */
export async function createBackend(options: StoreOptions, log: Logger): Promise<ArtifactBackend> {
  if (!options.s3) return new LocalBackend(options.dir, log);
  const { S3Backend } = await import('./s3-backend.js');
  return new S3Backend(options.s3, options.dir, log);
}

/** Where the store keeps artifacts, known before the backend is loaded: the directory, or `s3://bucket/prefix`. */
export function backendLocation(options: StoreOptions): string {
  return options.s3 ? `s3://${options.s3.bucket}/${options.s3.prefix}` : resolve(options.dir);
}
