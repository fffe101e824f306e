import type { ServerResponse } from 'node:http';
import {
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { Config, OAuthResourceOptions } from '../../config/types.js';
import type { Logger } from '../../logger.js';
import { refuse, refuseUnavailable, type Refusal } from './challenge.js';
import { IssuerKeys, IssuerUnavailableError } from './issuer-keys.js';
import { JwtAccessTokenVerifier } from './jwt-verifier.js';
import { metadataPaths, protectedResourceMetadata } from './protected-resource.js';
import { resourceUrl } from './resource-url.js';

const UNAVAILABLE_LOG_MS = 10_000;

export type OAuthOutcome = { principal: string } | { refusal: Refusal } | { unavailable: string };

/**
 * The gateway as an OAuth protected resource: its metadata document, its challenges, and the check of a bearer
 * token as a JWT access token of the configured issuer. The resource URL may depend on the port listened on, so
 * `bind` completes it once the socket is open.
 */
export class OAuthGate {
  private readonly keys: IssuerKeys;
  private verifier?: JwtAccessTokenVerifier;
  private bound?: { metadataUrl: string; paths: Set<string>; document: object };
  private unavailableLogged = { at: 0, since: 0 };

  constructor(
    private readonly options: OAuthResourceOptions,
    private readonly config: Config,
    private readonly log: Logger,
  ) {
    this.keys = new IssuerKeys(options.issuer, options.jwksUri);
  }

  bind(listened: { host: string; port: number }): void {
    const resource = resourceUrl(this.options, this.config, listened);
    // A configured resource as written (URL parsing would add a slash to a bare origin): clients ask for tokens for
    // the metadata's resource, and an authorization server puts exactly that into aud.
    const resourceId = this.options.resource ?? resource.href;
    const audience = this.options.audience ?? resourceId;
    this.verifier = new JwtAccessTokenVerifier(this.options, audience, this.keys);
    this.bound = {
      // RFC 9728's path-aware rule, the SDK's helper.
      metadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
      paths: metadataPaths(resource),
      document: protectedResourceMetadata(this.options, resourceId),
    };
    this.log.info(
      { resource: resourceId, audience, issuer: this.options.issuer, metadata: this.bound.metadataUrl },
      'accepting OAuth access tokens',
    );
  }

  /** Fetches the issuer's metadata and keys ahead of the first request, so a wrong issuer shows in the log at once. */
  async warmUp(): Promise<void> {
    try {
      await this.keys.prefetch();
    } catch (error) {
      this.log.warn(
        { ...(error instanceof IssuerUnavailableError ? { url: error.url } : {}), err: (error as Error).message },
        'OAuth issuer not reachable yet; requests with tokens get 503 until it is',
      );
    }
  }

  /** The metadata document if `path` is one of its paths. */
  metadataAt(path: string): object | undefined {
    return this.bound?.paths.has(path) ? this.bound.document : undefined;
  }

  get metadataUrl(): string {
    return this.state().metadataUrl;
  }

  get requiredScopes(): string[] {
    return this.options.requiredScopes ?? [];
  }

  async verify(token: string): Promise<OAuthOutcome> {
    const { metadataUrl } = this.state();
    try {
      const info = await verifyBearerToken(`Bearer ${token}`, {
        verifier: this.verifier!,
        requiredScopes: this.requiredScopes,
        resourceMetadataUrl: metadataUrl,
      });
      return { principal: info.extra!.principal as string };
    } catch (error) {
      if (error instanceof IssuerUnavailableError) {
        this.warnUnavailable(error);
        return { unavailable: error.message };
      }
      if (error instanceof OAuthError && error.code === OAuthErrorCode.InsufficientScope) {
        const scopes = this.requiredScopes.join(' ');
        return { refusal: { kind: 'insufficient_scope', description: `the access token lacks a scope of: ${scopes}` } };
      }
      if (error instanceof OAuthError && error.code === OAuthErrorCode.InvalidToken) {
        return { refusal: { kind: 'invalid_token', description: error.message } };
      }
      throw error;
    }
  }

  refuse(res: ServerResponse, outcome: { refusal: Refusal } | { unavailable: string }): void {
    if ('unavailable' in outcome) return refuseUnavailable(res, outcome.unavailable);
    refuse(res, outcome.refusal, this.state().metadataUrl, this.requiredScopes);
  }

  /**
   * One line per 10 s while the issuer is down, counting the requests refused meanwhile: every client retries, and a
   * line per request would bury everything else in the log.
   */
  private warnUnavailable(error: IssuerUnavailableError): void {
    const now = Date.now();
    if (now - this.unavailableLogged.at < UNAVAILABLE_LOG_MS) {
      this.unavailableLogged.since += 1;
      return;
    }
    this.log.warn(
      { url: error.url, err: error.message, refusedSinceLastLine: this.unavailableLogged.since },
      'OAuth token not checked: issuer unavailable',
    );
    this.unavailableLogged = { at: now, since: 0 };
  }

  private state(): NonNullable<OAuthGate['bound']> {
    if (!this.bound) throw new Error('OAuthGate.bind must run before requests are served');
    return this.bound;
  }
}
