import type { ServerConfig } from '../config/types.js';
import type { DiscoverAnswer, PriorEra } from './connect.js';

/**
 * What the proxy found out about a configured server's era, for the life of the proxy: its restarts and the
 * connections opened for single clients skip the `server/discover` probe. Probing a legacy server again would cost
 * each new process the probe timeout (servers that ignore the probe) or a life (servers that exit on it); a modern
 * server that answered too late to be taken for one is spoken to in its era from then on. A server upgraded
 * meanwhile is found at the proxy's next start.
 */
const verdicts = new WeakMap<ServerConfig, PriorEra>();

export function rememberLegacy(config: ServerConfig): void {
  verdicts.set(config, { kind: 'legacy' });
}

export function rememberModern(config: ServerConfig, discover: DiscoverAnswer): void {
  verdicts.set(config, { kind: 'modern', discover });
}

export function verdictOf(config: ServerConfig): PriorEra | undefined {
  return verdicts.get(config);
}

/**
 * Whether a modern server also speaks the legacy era, as the first connection that tried it for a legacy client
 * found (see Upstream.followLegacyClient): a server that took that `initialize` serves every later legacy client
 * in its era; one that did not is not asked again, and its legacy clients are served in 2026-07-28, their questions
 * bridged (relay/interceptors/eras.ts). For the life of the proxy, like the era verdict.
 */
const legacyToo = new WeakMap<ServerConfig, boolean>();

export function rememberLegacyToo(config: ServerConfig, speaks: boolean): void {
  legacyToo.set(config, speaks);
}

export function speaksLegacyToo(config: ServerConfig): boolean | undefined {
  return legacyToo.get(config);
}

/**
 * Whether a legacy client in front of `config`'s modern server gets a connection in its own era: unless the
 * config pins the era (`protocol: modern` means 2026-07-28 only) or the server refused the legacy era before.
 */
export function followsLegacyClients(config: ServerConfig): boolean {
  if (config.kind === 'abp' || (config.protocol ?? 'auto') !== 'auto') return false;
  return speaksLegacyToo(config) !== false;
}
