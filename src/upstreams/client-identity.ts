import { Client, type ClientCapabilities, type Implementation } from '@modelcontextprotocol/client';
import { LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
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
 * The protocol versions a connection speaking as `identity` offers: the client's own first, so the upstream is
 * asked for the version the client asked the proxy for (the SDK offers the first legacy version of the list).
 */
function versionsFor(identity: ClientIdentity): string[] {
  const asked = identity.protocolVersion;
  if (asked === undefined || !LEGACY_PROTOCOL_VERSIONS.includes(asked)) return LEGACY_PROTOCOL_VERSIONS;
  return [asked, ...LEGACY_PROTOCOL_VERSIONS.filter((version) => version !== asked)];
}

/** An SDK client that introduces itself with `identity`, protocol version included, and speaks the legacy era only. */
export function identifiedClient(identity: ClientIdentity): Client {
  return new Client(identity.clientInfo, {
    capabilities: identity.capabilities,
    versionNegotiation: { mode: 'legacy' },
    supportedProtocolVersions: versionsFor(identity),
  });
}
