import { join } from 'node:path';
import type { AbpOptions } from '../../config/abp.js';
import type { BrowserOptions } from './types.js';

/** What the browser side needs for one named session: its own profile folder when profiles persist. */
export function browserOptionsFor(
  options: AbpOptions,
  session: string,
  agent: BrowserOptions['agent'],
): BrowserOptions {
  return {
    ...(options.executablePath !== undefined ? { executablePath: options.executablePath } : {}),
    headless: options.headless,
    browserTimeoutMs: options.browserTimeoutMs,
    downloadTimeoutMs: options.downloadTimeoutMs,
    abpWaitMs: options.abpWaitMs,
    ...(options.userDataDir !== undefined ? { userDataDir: join(options.userDataDir, session) } : {}),
    extensionStoreUrl: options.extensionStoreUrl,
    extensionCacheDir: options.extensionCacheDir,
    agent,
  };
}
