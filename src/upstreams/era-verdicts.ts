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
 * Whether a modern server also speaks the legacy era, as the first connection that tried it for a legacy client
 * found (see Upstream.followsLegacyClient): a server that took that `initialize` serves every later legacy client
 * in its era; one that did not is not asked again, and its legacy clients are served in 2026-07-28, their questions
 * bridged (gateway/input-rounds.ts). For the life of the proxy, like the era verdict.
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
