import type { ClientCapabilities, JSONRPCRequest } from '@modelcontextprotocol/server';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { ClientError } from '../upstreams/errors.js';

/** Names the capability the client lacks for this upstream request, or `undefined` if it has it. */
export function clientSupports(
  capabilities: ClientCapabilities | undefined,
  request: JSONRPCRequest,
): string | undefined {
  switch (request.method) {
    case 'sampling/createMessage':
      return capabilities?.sampling ? undefined : 'sampling';
    case 'roots/list':
      return capabilities?.roots ? undefined : 'roots';
    case 'elicitation/create': {
      const elicitation = capabilities?.elicitation as { url?: unknown } | undefined;
      if (!elicitation) return 'elicitation';
      const mode = (request.params as { mode?: string } | undefined)?.mode;
      return mode === 'url' && !elicitation.url ? 'URL-mode elicitation' : undefined;
    }
    default:
      return undefined;
  }
}

/** The error an upstream gets when the client lacks what its request needs; `undefined` if the client has it. */
export function unsupportedByClient(
  capabilities: ClientCapabilities | undefined,
  request: JSONRPCRequest,
  upstream: string,
): ClientError | undefined {
  const missing = clientSupports(capabilities, request);
  if (!missing) return undefined;
  return new ClientError(
    ProtocolErrorCode.MethodNotFound,
    `the MCP client connected to mcp-offload does not support ${missing} (${request.method} requested by upstream "${upstream}")`,
  );
}
