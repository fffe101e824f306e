import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ClientCapabilities, ClientRequest, Implementation, Request } from '@modelcontextprotocol/sdk/types.js';

/**
 * A real SDK v1 client that asks for a protocol version of its choosing (v1's `connect()` always asks for its
 * latest) and remembers the version the server answered with: a client of an older revision, for tests.
 */
export class VersionedClient extends Client {
  negotiatedProtocolVersion?: string;

  constructor(
    private readonly identity: {
      clientInfo: Implementation;
      capabilities: ClientCapabilities;
      protocolVersion?: string;
    },
  ) {
    super(identity.clientInfo, { capabilities: identity.capabilities });
  }

  override async request<T extends Parameters<Client['request']>[1]>(
    request: ClientRequest | Request,
    resultSchema: T,
    options?: RequestOptions,
  ): ReturnType<Client['request']> {
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
