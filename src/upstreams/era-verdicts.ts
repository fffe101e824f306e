import type { DiscoverResult, JSONRPCMessage, PriorDiscovery } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/types.js';
import { FIRST_MODERN_PROTOCOL_VERSION } from '../protocol/versions.js';

/**
 * What the proxy found out about a configured server's era, for the life of the proxy: its restarts and the
 * connections opened for single clients skip the `server/discover` probe. Probing a legacy server again would cost
 * each new process the probe timeout (servers that ignore the probe) or a life (servers that exit on it); a modern
 * server that answered too late to be taken for one is spoken to in its era from then on. A server upgraded
 * meanwhile is found at the proxy's next start.
 */
const verdicts = new WeakMap<ServerConfig, PriorDiscovery>();

export function rememberLegacy(config: ServerConfig): void {
  verdicts.set(config, { kind: 'legacy' });
}

export function rememberModern(config: ServerConfig, discover: DiscoverResult): void {
  verdicts.set(config, { kind: 'modern', discover });
}

export function verdictOf(config: ServerConfig): PriorDiscovery | undefined {
  return verdicts.get(config);
}

/** A reply to the SDK's own `server/discover` probe (the SDK numbers its probes under this prefix). */
export function isProbeReply(message: JSONRPCMessage): boolean {
  return 'id' in message && typeof message.id === 'string' && message.id.startsWith('server-discover-probe-');
}

/**
 * The SDK's answer to its own probe when it came after the probe timed out (the SDK then ignores it): a stdio
 * server that started slower than the probe timeout, and speaks the modern era.
 */
export function lateModernAnswer(message: JSONRPCMessage): DiscoverResult | undefined {
  if (!isProbeReply(message) || !('result' in message)) return undefined;
  const versions = (message.result as { supportedVersions?: unknown }).supportedVersions;
  return Array.isArray(versions) && versions.includes(FIRST_MODERN_PROTOCOL_VERSION)
    ? (message.result as DiscoverResult)
    : undefined;
}
