import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { APP_MIME_TYPE, UI_EXTENSION_ID } from '../protocol/apps.js';
import { Codes, RpcError } from '../rpc/errors.js';

/**
 * Whether the client hosts MCP Apps: it declares the UI extension with the views' MIME type (SEP-1865). A 2025
 * client says so in `initialize`, a 2026-07-28 client in each request's envelope; a Call has whichever applies
 * (`Call.hostsApps`). Such a client shows a linked tool's view with the result's `structuredContent` and hides
 * app-only tools from its model; for any other client the proxy behaves as if MCP Apps did not exist.
 */
export function hostsApps(capabilities: ClientCapabilities | undefined): boolean {
  const extension = capabilities?.extensions?.[UI_EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(extension?.mimeTypes) && extension.mimeTypes.includes(APP_MIME_TYPE);
}

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
