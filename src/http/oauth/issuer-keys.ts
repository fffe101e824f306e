import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { createRemoteJWKSet, type RemoteJWKSet } from 'jose';

/**
 * The issuer's keys could not be had (its metadata or JWKS unreachable, an error status, not JSON): nothing is
 * known about the token, so the request is answered 503, neither let through nor told its token is bad.
 */
export class IssuerUnavailableError extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`cannot verify access tokens: ${url} ${reason}`);
    this.name = 'IssuerUnavailableError';
  }
}

/**
 * The issuer's signing keys: the JWKS at `jwksUri`, or at the jwks_uri of the issuer's metadata (RFC 8414, then
 * OpenID Connect discovery, by the SDK's discovery helper, which also checks the metadata names this issuer).
 * jose's remote set caches the keys (10 minutes) and fetches them again, at most every 30 s, when a token names a
 * key id it does not know: a rotated key is picked up without a restart. Discovery is retried on the next request
 * after a failure, and done once after a success.
 */
export class IssuerKeys {
  private keys?: Promise<RemoteJWKSet>;

  constructor(
    private readonly issuer: string,
    private readonly jwksUri?: string,
  ) {}

  /** The key function for jwtVerify; throws IssuerUnavailableError when discovery fails. */
  resolver(): Promise<RemoteJWKSet> {
    this.keys ??= this.discover().then(
      (uri) => createRemoteJWKSet(new URL(uri), { timeoutDuration: 5000 }),
      (error: unknown) => {
        this.keys = undefined;
        throw error;
      },
    );
    return this.keys;
  }

  /** Discovers the JWKS and fetches it now, rather than on the first request; throws as a request would. */
  async prefetch(): Promise<void> {
    const keys = await this.resolver();
    try {
      await keys.reload();
    } catch (error) {
      throw new IssuerUnavailableError(`the JWKS at ${this.jwksLocation}`, `failed: ${(error as Error).message}`);
    }
  }

  /** Where the JWKS is (for messages): known once discovered. */
  get jwksLocation(): string {
    return this.jwksUri ?? this.discovered ?? `the jwks_uri of ${this.issuer}`;
  }

  private discovered?: string;

  private async discover(): Promise<string> {
    if (this.jwksUri) return this.jwksUri;
    let metadata;
    try {
      metadata = await discoverAuthorizationServerMetadata(this.issuer);
    } catch (error) {
      throw new IssuerUnavailableError(`the metadata of ${this.issuer}`, `failed: ${(error as Error).message}`);
    }
    // undefined: neither /.well-known/oauth-authorization-server nor openid-configuration answered (an unreachable
    // host ends up here too, since the helper treats a failed fetch like a refused cross-origin request).
    if (!metadata)
      throw new IssuerUnavailableError(
        `the metadata of ${this.issuer}`,
        'could not be fetched (no RFC 8414 or OpenID Connect discovery document answered); set auth.oauth.jwksUri if it has none',
      );
    const uri = metadata.jwks_uri as string | undefined;
    if (!uri)
      throw new IssuerUnavailableError(`the metadata of ${this.issuer}`, 'names no jwks_uri; set auth.oauth.jwksUri');
    this.discovered = uri;
    return uri;
  }
}
