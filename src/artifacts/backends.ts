import type { Logger } from '../logger.js';
import type { ArtifactBackend } from './backend.js';
import { LocalBackend } from './local-backend.js';
import { S3Backend } from './s3-backend.js';
import type { StoreOptions } from './types.js';

/** `artifacts.backend`: a bucket when `s3` options are given, else the directory. */
export function createBackend(options: StoreOptions, log: Logger): ArtifactBackend {
  return options.s3 ? new S3Backend(options.s3, options.dir, log) : new LocalBackend(options.dir, log);
}
