import type { Config, OAuthResourceOptions } from '../../config/types.js';
import { isLoopback } from '../auth.js';

/** The MCP endpoint's path on this gateway; the resource URL names it. */
const MCP_PATH = '/mcp';
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The canonical URL clients use for /mcp (RFC 8707 / RFC 9728 `resource`): configured, else the external base URL
 * (artifacts.publicUrl), else the address listened on. A wildcard address names no host a client could use, so it
 * is refused rather than guessed. http.advertiseUrl is not used: it is where the other replicas reach this one, so
 * it differs per replica, and a token asked for one replica's URL would be refused by the next.
 */
export function resourceUrl(
  oauth: OAuthResourceOptions,
  config: Config,
  listened: { host: string; port: number },
): URL {
  if (oauth.resource) return new URL(oauth.resource);
  const base = config.artifacts.publicUrl;
  if (base) return new URL(`${base.replace(/\/+$/, '')}${MCP_PATH}`);
  if (WILDCARDS.has(listened.host)) throw new Error(wildcardProblem(listened.host));
  const host = listened.host.includes(':') ? `[${listened.host}]` : listened.host;
  return new URL(`http://${host}:${listened.port}${MCP_PATH}`);
}

const wildcardProblem = (host: string): string =>
  `auth.oauth needs the URL clients reach the gateway at, and ${host} names none: ` +
  `set auth.oauth.resource (e.g. https://tools.example.com/mcp) or artifacts.publicUrl`;

/**
 * What is wrong with `auth.oauth` for this listen address, before anything starts; `undefined` when nothing.
 * OAuth 2.1 wants TLS to the authorization server: plain http is for an issuer on this machine (tests, a local dev
 * server) only, since a token checked against keys fetched in clear text proves nothing.
 */
export function oauthProblem(
  oauth: OAuthResourceOptions | undefined,
  config: Config,
  host: string,
): string | undefined {
  if (!oauth) return undefined;
  for (const [key, value] of [
    ['issuer', oauth.issuer],
    ['jwksUri', oauth.jwksUri],
  ] as const) {
    if (value === undefined) continue;
    const url = new URL(value);
    if (url.protocol !== 'https:' && !isLoopback(url.hostname))
      return `auth.oauth.${key} must be an https URL (plain http only for a server on this machine): ${value}`;
  }
  const named = oauth.resource ?? config.artifacts.publicUrl;
  if (!named && WILDCARDS.has(host)) return wildcardProblem(host);
  // Each replica would announce its own address, and its tokens would be refused by the others.
  if (!named && config.redis)
    return 'with redis, every replica must announce the same resource: set auth.oauth.resource or artifacts.publicUrl';
  return undefined;
}
