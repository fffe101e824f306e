import type { IncomingMessage } from 'node:http';
import {
  auth,
  computeScopeUnion,
  createFetchWithInit,
  extractWWWAuthenticateParams,
  InsufficientScopeError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { AuthResult, FetchLike, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client';
import { readText, type HttpAttempt, type HttpEndpoint } from './http-request.js';

/** An HTTP request whose headers depend on the token it goes with. */
export interface AuthorizedAttempt extends Omit<HttpAttempt, 'headers'> {
  headers(token: string | undefined): Record<string, string>;
}

/** What a 401 said about how to log in (RFC 9728 §5.1: `WWW-Authenticate: Bearer resource_metadata="..."`). */
export interface BearerChallenge {
  resourceMetadata?: string;
  scope?: string;
  error?: string;
  errorDescription?: string;
}

/** Step-up re-authorizations one request may make after `403 insufficient_scope` (the SDK's maxStepUpRetries). */
const MAX_STEP_UPS = 1;

/**
 * The OAuth side of an HTTP wire, as the SDK's transports do it with an OAuthClientProvider: the Bearer token of
 * every request, `auth()` after a 401 (with the challenge's `resource_metadata` and `scope`) and a step-up after a
 * 403 `insufficient_scope` (a new authorization for the union of the scopes), each followed by one retry.
 *
 * Unlike the SDK's transport, one authorization runs at a time: requests that meet a 401 while it runs wait for it
 * and retry with its token, instead of each starting discovery of its own (the old build fetched an upstream's
 * resource metadata ten times in eight seconds). The discovery state is kept for the next run even when the
 * provider keeps none.
 *
 * What ends an authorization is kept as `failure`, for the caller's login logic: an `UnauthorizedError` when it needs
 * a browser ('REDIRECT'), what the provider or `auth()` threw as it is (the proxy's provider throws a
 * LoginRequiredError naming the command that logs in), the SDK's HTTP error of a 401 after a new token or a 403 after
 * a step-up, and the HTTP error (status 401) of a 401 to a wire without a provider, whose challenge is kept as
 * `lastChallenge`.
 */
export class HttpAuth {
  /** The last Bearer challenge of a 401. */
  lastChallenge?: BearerChallenge;
  /** The last authorization failure. */
  failure?: Error;
  private readonly provider?: OAuthClientProvider;
  private readonly fetchFn: FetchLike;
  /** The scopes asked for so far: a step-up asks for these and the new ones. */
  private scope?: string;
  private resourceMetadataUrl?: URL;
  private running?: Promise<void>;

  constructor(
    private readonly serverUrl: URL,
    provider: OAuthClientProvider | undefined,
    /** The wire's configured headers, which the SDK sends to the authorization server too (createFetchWithInit). */
    headers: Record<string, string>,
  ) {
    if (provider) this.provider = rememberingDiscovery(provider);
    this.fetchFn = createFetchWithInit(undefined, Object.keys(headers).length ? { headers } : undefined);
  }

  get hasProvider(): boolean {
    return this.provider !== undefined;
  }

  /** The access token to send; a provider that cannot say is an authorization failure. */
  async token(): Promise<string | undefined> {
    if (!this.provider) return undefined;
    try {
      return (await this.provider.tokens())?.access_token;
    } catch (error) {
      throw this.failed(error);
    }
  }

  /**
   * Sends `attempt` with the current token and answers the response, after at most one authorization and retry for
   * a 401 and one step-up and retry for a 403 `insufficient_scope` (throwing the failure when they fail). A 401 to a
   * wire without a provider is answered as it is, its challenge noted. `attempt.headers` makes each try's headers.
   */
  async request(http: HttpEndpoint, attempt: AuthorizedAttempt): Promise<IncomingMessage> {
    let retried = false;
    let stepUps = 0;
    for (;;) {
      // Without a provider there is no token to wait for: no promise turns for nothing, on every request.
      const token = this.provider ? await this.token() : undefined;
      const res = await http.request({ ...attempt, headers: attempt.headers(token) });
      const status = res.statusCode ?? 0;
      if (status === 401) {
        const challenge = this.challenged(headerOf(res, 'www-authenticate'));
        if (!this.provider) return res;
        res.resume();
        await this.unauthorized(challenge, token, retried, res.statusMessage);
        retried = true;
      } else if (status === 403) {
        const challenge = parseChallenge(headerOf(res, 'www-authenticate'));
        if (challenge.error !== 'insufficient_scope') return res;
        await this.insufficientScope(challenge, token, stepUps++, await readText(res));
      } else {
        return res;
      }
      if (attempt.signal?.aborted) throw attempt.signal.reason;
    }
  }

  /** Notes a 401's challenge (`www-authenticate`), whoever sent it. */
  private challenged(header: string | undefined): BearerChallenge {
    const challenge = parseChallenge(header);
    if (header && /^\s*bearer\b/i.test(header)) this.lastChallenge = challenge;
    return challenge;
  }

  /**
   * After a 401 to a request sent with `sent` (the token, if any): makes a new token to retry with, or throws the
   * failure. `retried`: the request was already retried after an authorization, and is not again.
   */
  private async unauthorized(
    challenge: BearerChallenge,
    sent: string | undefined,
    retried: boolean,
    statusText = '',
  ): Promise<void> {
    if (retried) {
      throw this.failed(
        new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, 'Server returned 401 after re-authentication', {
          status: 401,
          statusText,
        }),
      );
    }
    if (challenge.resourceMetadata) this.resourceMetadataUrl = urlOrUndefined(challenge.resourceMetadata);
    this.scope = computeScopeUnion(this.scope, challenge.scope);
    const { scope } = challenge;
    const resourceMetadataUrl = urlOrUndefined(challenge.resourceMetadata);
    await this.authorize(sent, () =>
      auth(this.provider!, { serverUrl: this.serverUrl, resourceMetadataUrl, scope, fetchFn: this.fetchFn }),
    );
  }

  /** After a 403 `insufficient_scope`: a new authorization that covers the scope the challenge names, or throws. */
  private async insufficientScope(
    challenge: BearerChallenge,
    sent: string | undefined,
    stepUps: number,
    text: string,
  ): Promise<void> {
    if (!this.provider) {
      throw this.failed(
        new InsufficientScopeError({
          ...(challenge.scope !== undefined ? { requiredScope: challenge.scope } : {}),
          ...(challenge.resourceMetadata ? { resourceMetadataUrl: urlOrUndefined(challenge.resourceMetadata) } : {}),
          ...(challenge.errorDescription !== undefined ? { errorDescription: challenge.errorDescription } : {}),
        }),
      );
    }
    if (stepUps >= MAX_STEP_UPS) {
      throw this.failed(
        new SdkHttpError(
          SdkErrorCode.ClientHttpForbidden,
          `Server returned 403 insufficient_scope after step-up re-authorization (retry limit ${MAX_STEP_UPS} reached)`,
          { status: 403, statusText: 'Forbidden', text },
        ),
      );
    }
    if (challenge.resourceMetadata) this.resourceMetadataUrl = urlOrUndefined(challenge.resourceMetadata);
    await this.authorize(sent, async () => {
      const provider = this.provider!;
      const tokens = await provider.tokens();
      // A refresh cannot widen a grant (RFC 6749 §6): asking for more than the token has takes a new authorization.
      const scope = computeScopeUnion(this.scope, tokens?.scope, challenge.scope);
      this.scope = scope;
      return auth(provider, {
        serverUrl: this.serverUrl,
        ...(this.resourceMetadataUrl ? { resourceMetadataUrl: this.resourceMetadataUrl } : {}),
        ...(scope !== undefined ? { scope } : {}),
        forceReauthorization: isStrictScopeSuperset(scope, tokens?.scope),
        fetchFn: this.fetchFn,
      });
    });
  }

  /**
   * Runs `flow` unless one runs already (its outcome is this request's too) or the token changed since the request
   * was sent (another request's authorization made a new one: retrying with it is enough).
   */
  private async authorize(sent: string | undefined, flow: () => Promise<AuthResult>): Promise<void> {
    if (this.running) return this.running;
    const current = await this.token();
    if (this.running) return this.running;
    if (current !== sent) return;
    const run = (async () => {
      let result: AuthResult;
      try {
        result = await flow();
      } catch (error) {
        throw this.failed(error);
      }
      if (result !== 'AUTHORIZED') {
        throw this.failed(new UnauthorizedError('Unauthorized: the authorization needs the user in a browser'));
      }
    })();
    this.running = run;
    try {
      await run;
    } finally {
      this.running = undefined;
    }
  }

  /**
   * `error` as the authorization failure the caller is told of, kept as `failure`: what the provider or `auth()`
   * threw is kept as it is, as the SDK's transport lets it through (a LoginRequiredError keeps its own words).
   */
  private failed(error: unknown): Error {
    const failure = error instanceof Error ? error : new Error(String(error));
    this.failure = failure;
    return failure;
  }
}

/** The challenge of a `WWW-Authenticate` header, read as the SDK reads it. */
export function parseChallenge(header: string | undefined): BearerChallenge {
  if (!header) return {};
  const params = extractWWWAuthenticateParams({ headers: new Headers({ 'www-authenticate': header }) } as Response);
  return {
    ...(params.resourceMetadataUrl ? { resourceMetadata: params.resourceMetadataUrl.href } : {}),
    ...(params.scope !== undefined ? { scope: params.scope } : {}),
    ...(params.error !== undefined ? { error: params.error } : {}),
    ...(params.errorDescription !== undefined ? { errorDescription: params.errorDescription } : {}),
  };
}

/**
 * The provider, with the discovery state of the last authorization kept here when the provider keeps none (or has
 * none to give), so the next authorization skips RFC 9728/8414 discovery as the SDK skips it for a provider that
 * keeps it. Everything else is the provider's own.
 */
function rememberingDiscovery(provider: OAuthClientProvider): OAuthClientProvider {
  let kept: OAuthDiscoveryState | undefined;
  const own: Partial<OAuthClientProvider> = {
    discoveryState: async () => (await provider.discoveryState?.()) ?? kept,
    saveDiscoveryState: async (state) => {
      kept = state;
      await provider.saveDiscoveryState?.(state);
    },
    ...(provider.invalidateCredentials
      ? {
          invalidateCredentials: async (scope) => {
            if (scope === 'all' || scope === 'discovery') kept = undefined;
            await provider.invalidateCredentials!(scope);
          },
        }
      : {}),
  };
  return new Proxy(provider, {
    get(target, key) {
      if (Object.hasOwn(own, key)) return own[key as keyof OAuthClientProvider];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Whether `union` has a scope `current` lacks (the SDK's isStrictScopeSuperset, which it does not export). */
function isStrictScopeSuperset(union: string | undefined, current: string | undefined): boolean {
  if (!union) return false;
  const have = new Set((current ?? '').split(/\s+/).filter(Boolean));
  return union.split(/\s+/).some((scope) => scope && !have.has(scope));
}

function headerOf(res: IncomingMessage, name: string): string | undefined {
  const value = res.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function urlOrUndefined(text: string | undefined): URL | undefined {
  try {
    return text ? new URL(text) : undefined;
  } catch {
    return undefined;
  }
}
