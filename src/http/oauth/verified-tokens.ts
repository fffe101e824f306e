import type { AuthInfo } from '@modelcontextprotocol/server';

/** How many verified tokens are remembered; the oldest go first. */
const MAX_ENTRIES = 10_000;

/**
 * Tokens already verified, until they expire: a client sends the same token with every request, and a signature
 * check per request is the cost worth saving. A token is only ever added after a full check, and is dropped at its
 * `exp`, so nothing is accepted here that a fresh check would refuse, except a token whose signing key was
 * withdrawn from the JWKS before the token expired (JWTs cannot be revoked without introspection anyway).
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { info: AuthInfo; until: number }>();

  get(token: string, nowSeconds: number): AuthInfo | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until <= nowSeconds) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.info;
  }

  /** Remembers `info` until `untilSeconds` (the token's exp). */
  add(token: string, info: AuthInfo, untilSeconds: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { info, until: untilSeconds });
  }
}
