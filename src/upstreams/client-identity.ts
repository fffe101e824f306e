import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCMessage,
} from '@modelcontextprotocol/client';
import { isDeepStrictEqual } from 'node:util';
import type { UpstreamProtocol } from '../config/types.js';
import {
  FIRST_MODERN_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
} from '../protocol/versions.js';
import { VERSION } from '../version.js';

/** Who an upstream connection introduces itself as in `initialize`. */
export interface ClientIdentity {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  /** The protocol version to ask for; absent, the SDK's latest. */
  protocolVersion?: string;
}

/**
 * A connection shared by several clients speaks as the proxy and declares every client capability, so servers
 * offer their full feature set; requests the client cannot serve are answered with a clear error (see gateway).
 */
export const PROXY_IDENTITY: ClientIdentity = {
  clientInfo: { name: 'mcp-offload', version: VERSION },
  capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } },
};

/** The identity of a downstream client, from its `initialize` params. */
export function identityOf(params: {
  clientInfo?: Implementation;
  capabilities?: ClientCapabilities;
  protocolVersion?: string;
}): ClientIdentity {
  return {
    clientInfo: params.clientInfo ?? PROXY_IDENTITY.clientInfo,
    capabilities: params.capabilities ?? {},
    ...(params.protocolVersion !== undefined ? { protocolVersion: params.protocolVersion } : {}),
  };
}

/**
 * Whether two introductions name the same client with the same capabilities, in whatever form: key order aside,
 * and `elicitation: {}` being form mode, as the SDK reads it.
 */
export function sameClient(a: ClientIdentity, b: ClientIdentity): boolean {
  return (
    a.clientInfo.name === b.clientInfo.name &&
    a.clientInfo.version === b.clientInfo.version &&
    isDeepStrictEqual(inForm(a.capabilities), inForm(b.capabilities))
  );
}

function inForm(capabilities: ClientCapabilities): ClientCapabilities {
  const { elicitation } = capabilities;
  if (!elicitation || typeof elicitation !== 'object' || Object.keys(elicitation).length > 0) return capabilities;
  return { ...capabilities, elicitation: { form: {} } };
}

/** A client known from its first message, and whether it is of the legacy era (it sent `initialize`). */
export interface FirstClient {
  identity: ClientIdentity;
  legacy: boolean;
}

/**
 * Who sent `message`, the first a client sent: a legacy client's `initialize`, or a 2026-07-28 request that names
 * its client in the `_meta` envelope (a pinned client's `server/discover` does).
 */
export function firstClientOf(message: JSONRPCMessage | undefined): FirstClient | undefined {
  if (!message || !('method' in message) || !('id' in message)) return undefined;
  const params = (message.params ?? {}) as Parameters<typeof identityOf>[0] & { _meta?: Record<string, unknown> };
  if (message.method === 'initialize') return { identity: identityOf(params), legacy: true };
  const clientInfo = params._meta?.[CLIENT_INFO_META_KEY] as Implementation | undefined;
  if (clientInfo === undefined) return undefined;
  const capabilities = (params._meta?.[CLIENT_CAPABILITIES_META_KEY] ?? {}) as ClientCapabilities;
  return { identity: { clientInfo, capabilities }, legacy: false };
}

/**
 * The protocol versions a connection speaking as `identity` offers: the client's own first, so the upstream is
 * asked for the version the client asked the proxy for (the SDK offers the first legacy version of the list).
 */
function versionsFor(identity: ClientIdentity): string[] {
  const asked = identity.protocolVersion;
  if (asked === undefined || !LEGACY_PROTOCOL_VERSIONS.includes(asked)) return LEGACY_PROTOCOL_VERSIONS;
  return [asked, ...LEGACY_PROTOCOL_VERSIONS.filter((version) => version !== asked)];
}

/** How a connection finds the server's era (the server's `protocol` and `probeTimeoutMs` settings). */
export interface EraChoice {
  protocol: UpstreamProtocol;
  /** Bounds the `server/discover` probe; absent, the connect timeout. */
  probeTimeoutMs?: number;
}

/**
 * An SDK client that introduces itself with `identity`, protocol version included. `legacy` speaks the legacy era
 * only, exactly as before the modern one existed; `auto` probes with `server/discover` first and falls back to the
 * same `initialize`; `modern` insists on 2026-07-28.
 *
 * The SDK client's multi-round-trip auto-fulfillment is off: an `input_required` answer is the downstream client's
 * to fulfil (the proxy passes it on as it came), not the proxy's.
 */
export function identifiedClient(identity: ClientIdentity, era: EraChoice = { protocol: 'legacy' }): Client {
  const legacy = versionsFor(identity);
  if (era.protocol === 'legacy') {
    return new Client(identity.clientInfo, {
      capabilities: identity.capabilities,
      versionNegotiation: { mode: 'legacy' },
      supportedProtocolVersions: legacy,
    });
  }
  return new Client(identity.clientInfo, {
    capabilities: identity.capabilities,
    versionNegotiation: {
      mode: era.protocol === 'modern' ? { pin: FIRST_MODERN_PROTOCOL_VERSION } : 'auto',
      ...(era.probeTimeoutMs !== undefined ? { probe: { timeoutMs: era.probeTimeoutMs } } : {}),
    },
    supportedProtocolVersions: [...MODERN_PROTOCOL_VERSIONS, ...legacy],
    inputRequired: { autoFulfill: false },
  });
}
