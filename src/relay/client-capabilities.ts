import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { Codes, RpcError } from '../rpc/errors.js';

/** Names the capability the client lacks for this upstream request, or `undefined` if it has it. */
export function clientSupports(
  capabilities: ClientCapabilities | undefined,
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  switch (method) {
    case 'sampling/createMessage':
      return capabilities?.sampling ? undefined : 'sampling';
    case 'roots/list':
      return capabilities?.roots ? undefined : 'roots';
    case 'elicitation/create': {
      const elicitation = capabilities?.elicitation as { url?: unknown } | undefined;
      if (!elicitation) return 'elicitation';
      return params?.mode === 'url' && !elicitation.url ? 'URL-mode elicitation' : undefined;
    }
    default:
      return undefined;
  }
}

/** The error an upstream gets when the client lacks what its request needs; `undefined` if the client has it. */
export function unsupportedByClient(
  capabilities: ClientCapabilities | undefined,
  method: string,
  params: Record<string, unknown> | undefined,
  upstream: string,
): RpcError | undefined {
  const missing = clientSupports(capabilities, method, params);
  if (!missing) return undefined;
  return new RpcError(
    Codes.MethodNotFound,
    `the MCP client connected to mcp-offload does not support ${missing} (${method} requested by upstream "${upstream}")`,
  );
}
