import type {
  RequestOptions,
  ClientCapabilities,
  ClientRequest,
  Implementation,
  Request,
} from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/client';
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
 * An SDK client that introduces itself with `identity`, protocol version included, and remembers the version the
 * server answered with.
 *
 * SDK v1 trick, the only one here: `Client.connect()` always asks for LATEST_PROTOCOL_VERSION, so the initialize
 * request is rewritten on its way out. (SDK v2 takes the version as an option; drop the override there.)
 */
export class IdentifiedClient extends Client {
  /** The protocol version the server answered `initialize` with. */
  negotiatedProtocolVersion?: string;

  constructor(private readonly identity: ClientIdentity) {
    super(identity.clientInfo, { capabilities: identity.capabilities });
  }

  override async request<T extends AnySchema>(
    request: ClientRequest | Request,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    if (request.method !== 'initialize') return super.request(request, resultSchema, options);
    const asked = this.identity.protocolVersion;
    const outgoing =
      asked === undefined ? request : { ...request, params: { ...request.params, protocolVersion: asked } };
    const result = await super.request(outgoing, resultSchema, options);
    const version = (result as { protocolVersion?: unknown }).protocolVersion;
    if (typeof version === 'string') this.negotiatedProtocolVersion = version;
    return result;
  }
}
