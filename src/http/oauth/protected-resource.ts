import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import type { OAuthResourceOptions } from '../../config/types.js';

export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** RFC 9728 §2: the document a client reads to learn which authorization server issues tokens for this resource. */
export function protectedResourceMetadata(
  oauth: OAuthResourceOptions,
  resource: string,
): OAuthProtectedResourceMetadata & { bearer_methods_supported: string[] } {
  const scopes = oauth.scopesSupported ?? oauth.requiredScopes;
  return {
    resource,
    authorization_servers: [oauth.issuer],
    ...(scopes && scopes.length > 0 ? { scopes_supported: scopes } : {}),
    // Tokens in a query string or a form body end up in logs: the header only.
    bearer_methods_supported: ['header'],
    resource_name: 'mcp-offload',
  };
}

/**
 * The paths the document is served at: the bare well-known path, and the path-aware form for the resource's path
 * (RFC 9728 §3.1) and for /mcp (the path this gateway serves, which a reverse proxy's prefix may hide from it).
 */
export function metadataPaths(resource: URL): Set<string> {
  const path = resource.pathname.replace(/\/+$/, '');
  return new Set([METADATA_PATH, `${METADATA_PATH}/mcp`, `${METADATA_PATH}${path}`]);
}

/**
 * Serves the document, public and readable cross-origin (browser-based clients fetch it before they hold a token;
 * it says nothing the 401 does not point to anyway).
 */
export function serveMetadata(req: IncomingMessage, res: ServerResponse, document: object): void {
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS' };
  if (req.method === 'OPTIONS') {
    return void res.writeHead(204, { ...cors, 'access-control-allow-headers': 'mcp-protocol-version' }).end();
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return void res.writeHead(405, { allow: 'GET, HEAD, OPTIONS', ...cors }).end();
  }
  const body = JSON.stringify(document);
  res.writeHead(200, {
    ...cors,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'public, max-age=3600',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
