import type { Logger } from '../logger.js';
import { humanSize } from './sizes.js';
import { ArtifactStore } from './store.js';
import type { StoreOptions } from './types.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * `mcp-offload gc`: one collection over everything in the directory, including artifacts of proxies
 * that are not running, since init loads every record on disk.
 */
export async function runGc(options: StoreOptions, log: Logger): Promise<string> {
  const store = new ArtifactStore(options, log);
  await store.init();
  const result = await store.gc();
  const forgotten =
    result.forgotten > 0 ? `, forgot ${plural(result.forgotten, 'record')} whose file was already gone` : '';
  return (
    `removed ${plural(result.removed, 'artifact')} (${humanSize(result.freedBytes)})${forgotten}, ` +
    `${result.remaining} remain (${humanSize(result.remainingBytes)}) in ${store.dir}`
  );
}
