import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { AuthOptions, AuthToken } from '../config/types.js';

export const TOKEN_ENV = 'MCP_OFFLOAD_AUTH_TOKEN';
export const ENV_TOKEN_NAME = 'env';
const MIN_TOKEN_CHARS = 16;
export const REALM = 'mcp-offload';

/** The configured tokens plus the one from MCP_OFFLOAD_AUTH_TOKEN; a weak one is an error, not a warning. */
export function configuredTokens(auth: AuthOptions, env: NodeJS.ProcessEnv = process.env): AuthToken[] {
  const tokens = [...auth.tokens];
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv) {
    if (fromEnv.length < MIN_TOKEN_CHARS)
      throw new Error(`${TOKEN_ENV} must be at least ${MIN_TOKEN_CHARS} characters long`);
    tokens.push({ name: ENV_TOKEN_NAME, token: fromEnv });
  }
  const names = new Set<string>();
  for (const { name } of tokens) {
    if (names.has(name)) throw new Error(`two auth tokens are named "${name}"; each needs its own name`);
    names.add(name);
  }
  return tokens;
}

/** 127.0.0.0/8, ::1 (and its IPv4-mapped form) and the name localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (bare.startsWith('::ffff:') && isIP(bare.slice(7)) === 4) return bare.slice(7).startsWith('127.');
  return bare === '::1';
}

/**
 * Why the gateway must not start: listening beyond this machine with no token lets anyone on the
 * network call every tool. `undefined` when it may.
 */
export function exposureProblem(host: string, tokens: readonly AuthToken[], auth: AuthOptions): string | undefined {
  if (tokens.length > 0 || auth.oauth || isLoopback(host) || auth.allowUnauthenticated) return undefined;
  return (
    `refusing to listen on ${host} without authentication: anyone who can reach it could call every tool. ` +
    `Set a token (auth.tokens in the config, or the ${TOKEN_ENV} environment variable) or auth.oauth, listen on 127.0.0.1, ` +
    `or set auth.allowUnauthenticated: true if something in front of mcp-offload checks who calls.`
  );
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(req: IncomingMessage): string | undefined {
  return BEARER.exec(req.headers.authorization ?? '')?.[1];
}

/** Checks `Authorization: Bearer <token>` against the tokens in constant time. */
export class BearerAuth {
  private readonly digests: Array<{ name: string; digest: Buffer }>;

  constructor(tokens: readonly AuthToken[]) {
    // Comparing fixed-length digests keeps the time independent of where, and whether, the strings differ.
    this.digests = tokens.map(({ name, token }) => ({ name, digest: digest(token) }));
  }

  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /** The token's name; `undefined` when the request carries no valid token. Without tokens, everyone is "anonymous". */
  check(req: IncomingMessage): string | undefined {
    return this.enabled ? this.nameOf(bearerToken(req)) : ANONYMOUS;
  }

  /** The name of the configured token that `token` is, if it is one. */
  nameOf(token: string | undefined): string | undefined {
    if (token === undefined || !this.enabled) return undefined;
    const offered = digest(token);
    let found: string | undefined;
    // Every token is compared, so the time does not say which one matched.
    for (const { name, digest: expected } of this.digests) if (timingSafeEqual(offered, expected)) found ??= name;
    return found;
  }
}

export const ANONYMOUS = 'anonymous';

export function refuseUnauthenticated(res: ServerResponse): void {
  res
    .writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': `Bearer realm="${REALM}"`,
      'cache-control': 'no-store',
    })
    .end(JSON.stringify({ error: 'unauthorized: send Authorization: Bearer <token>' }));
}
