import type { Logger } from '../logger.js';
import type { ArtifactBackend } from './backend.js';
import { LocalBackend } from './local-backend.js';
import type { StoreOptions } from './types.js';

/** `artifacts.backend`: the directory. */
export function createBackend(options: StoreOptions, log: Logger): ArtifactBackend {
  return new LocalBackend(options.dir, log);
}
