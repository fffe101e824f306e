import type { ServerConfig } from '../config/types.js';

/**
 * Servers found to speak the legacy era, for the life of the proxy: their restarts and the connections opened for
 * single clients go straight to `initialize`. Probing them again would cost each new process the probe timeout
 * (servers that ignore the probe) or a life (servers that exit on it). A server upgraded meanwhile is found at the
 * proxy's next start.
 */
const legacyServers = new WeakSet<ServerConfig>();

export function rememberLegacy(config: ServerConfig): void {
  legacyServers.add(config);
}

export function knownLegacy(config: ServerConfig): boolean {
  return legacyServers.has(config);
}
