import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import type { OAuthResourceOptions } from '../../config/types.js';
import { IssuerUnavailableError, type IssuerKeys } from './issuer-keys.js';
import { VerifiedTokens } from './verified-tokens.js';

/**
 * Asymmetric algorithms only: with a public JWKS, an HS* token would be checked against a key anyone can read, and
 * `none` has no signature at all.
 */
export const DEFAULT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** The principal a token's subject acts as: qualified with the issuer, which no static token's name can contain. */
export function oauthPrincipal(issuer: string, sub: string): string {
  return `oauth:${sub}@${issuer}`;
}

/**
 * JWT access tokens (RFC 9068) checked locally with jose: signature by a key of the issuer's JWKS, an allowed
 * algorithm, `iss`, `aud` containing the audience, `exp`/`nbf` with a small tolerance, and a `sub`. The SDK's
 * bearer helpers call it (OAuthTokenVerifier) and check the scopes.
 */
export class JwtAccessTokenVerifier implements OAuthTokenVerifier {
  private readonly verified = new VerifiedTokens();
  private readonly algorithms: string[];
  private readonly tolerance: number;

  constructor(
    private readonly options: OAuthResourceOptions,
    private readonly audience: string,
    private readonly keys: IssuerKeys,
  ) {
    this.algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
    this.tolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const now = Math.floor(Date.now() / 1000);
    const known = this.verified.get(token, now);
    if (known) return known;
    const key = await this.keys.resolver();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        issuer: this.options.issuer,
        audience: this.audience,
        algorithms: this.algorithms,
        clockTolerance: this.tolerance,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw this.classify(error);
    }
    const info: AuthInfo = {
      token,
      clientId: stringClaim(payload.client_id) ?? stringClaim(payload.azp) ?? '',
      scopes: scopesOf(payload),
      // The SDK's helper refuses a token past expiresAt; the tolerance jose granted has to show here too.
      expiresAt: payload.exp! + this.tolerance,
      extra: { principal: oauthPrincipal(this.options.issuer, payload.sub!), sub: payload.sub },
    };
    if (payload.exp! > now) this.verified.add(token, info, payload.exp!);
    return info;
  }

  /** A token the issuer would not vouch for is invalid_token (401); keys that could not be had are a 503. */
  private classify(error: unknown): Error {
    if (error instanceof IssuerUnavailableError) return error;
    if (error instanceof errors.JWTExpired) return invalid('the access token has expired');
    if (error instanceof errors.JWTClaimValidationFailed) return invalid(claimProblem(error.claim, error.reason));
    if (error instanceof errors.JOSEAlgNotAllowed)
      return invalid('the access token is signed with an algorithm not accepted here');
    if (error instanceof errors.JWSSignatureVerificationFailed)
      return invalid('the access token signature does not verify');
    if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
      return invalid("the access token's key is not among the issuer's keys");
    if (
      error instanceof errors.JWSInvalid ||
      error instanceof errors.JWTInvalid ||
      error instanceof errors.JOSENotSupported
    )
      return invalid('the access token is not a valid signed JWT');
    // Anything else came from fetching the JWKS: a timeout, an error status, a network failure, a malformed set.
    return new IssuerUnavailableError(`the JWKS at ${this.keys.jwksLocation}`, `failed: ${(error as Error).message}`);
  }
}

const invalid = (message: string): OAuthError => new OAuthError(OAuthErrorCode.InvalidToken, message);

function claimProblem(claim: string, reason: string): string {
  if (claim === 'iss') return 'the access token was issued by another issuer';
  if (claim === 'aud') return 'the access token was not issued for this resource (aud)';
  if (claim === 'nbf') return 'the access token is not valid yet';
  if (reason === 'missing') return `the access token has no "${claim}" claim`;
  return `the access token's "${claim}" claim is not valid`;
}

const stringClaim = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** RFC 9068's `scope` (space-separated), else the `scp` some issuers use (an array or a string). */
function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}
