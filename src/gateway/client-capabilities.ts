import type { ClientCapabilities, JSONRPCRequest } from '@modelcontextprotocol/server';

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
