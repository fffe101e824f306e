import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/client';
import { isDeepStrictEqual } from 'node:util';
import type { UpstreamProtocol } from '../config/types.js';
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY } from '../protocol/envelope.js';
import type { Frame } from '../wire/frame.js';
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
export function firstClientOf(frame: Frame | undefined): FirstClient | undefined {
  if (!frame || frame.kind !== 'request') return undefined;
  const params = frame.params as Parameters<typeof identityOf>[0] & { _meta?: Record<string, unknown> };
  if (frame.method === 'initialize') return { identity: identityOf(params), legacy: true };
  const clientInfo = params._meta?.[CLIENT_INFO_KEY] as Implementation | undefined;
  if (clientInfo === undefined) return undefined;
  const capabilities = (params._meta?.[CLIENT_CAPABILITIES_KEY] ?? {}) as ClientCapabilities;
  return { identity: { clientInfo, capabilities }, legacy: false };
}

/** How a connection finds the server's era (the server's `protocol` and `probeTimeoutMs` settings). */
export interface EraChoice {
  protocol: UpstreamProtocol;
  /** Bounds the `server/discover` probe; absent, the connect timeout. */
  probeTimeoutMs?: number;
}
