import { randomBytes } from 'node:crypto';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { HttpServerConfig, OAuthSettings } from '../../config/types.js';
import { loginRequired, type ServerOrigin } from './login-required.js';
import { readTokenFile, tokenFilePath, updateTokenFile, writeTokenFile } from './token-file.js';

/** Where the authorization server sends the browser back to when none is known yet (the proxy never listens). */
const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

export interface LoginHooks {
  /** The loopback address the login listens on. */
  redirectUrl: string;
  /** Shows the user the authorization URL (and opens a browser). */
  open(url: URL): void | Promise<void>;
}

/**
 * The SDK's OAuthClientProvider over one server's token file. The SDK does the protocol (RFC 9728 and RFC 8414
 * discovery, client ID metadata documents or dynamic registration, PKCE, the code exchange, refresh); this keeps
 * what it hands over in the file and decides who may ask the user.
 *
 * Two roles: inside the running proxy (no `login` hooks) it uses and refreshes what the file holds, and a flow that
 * would need the user's browser ends in LoginRequiredError naming `mcp-offload login`, without registering a client
 * or asking anyone; inside `mcp-offload login` it starts from nothing, registers when needed, and shows the user the
 * authorization URL.
 */
export class TokenFileProvider implements OAuthClientProvider {
  readonly file: string;
  readonly clientMetadataUrl?: string;
  private readonly settings: OAuthSettings;
  private verifier?: string;
  private expectedState?: string;
  /** In the proxy: tokens the server or a failed refresh rejected, not offered again until the file changes. */
  private rejected?: string;
  /** In the proxy: the access token last handed to the SDK, the one a rejection is about. */
  private offered?: string;
  /** In `login`: only tokens of this login count. */
  private fresh?: StoredOAuthTokens;
  /** In `login`: where this login's authorization started (the code exchange must go to the same server). */
  private discovered?: OAuthDiscoveryState;
  /** In `login`: the client registered for this login, written with its tokens. */
  private registered?: StoredOAuthClientInformation;
  /** In `login`: the stored client was found invalid; the login registers anew. */
  private ignoreStoredClient = false;

  constructor(
    private readonly server: Pick<HttpServerConfig, 'name' | 'url' | 'oauth'>,
    private readonly origin: ServerOrigin,
    private readonly login?: LoginHooks,
  ) {
    this.settings = server.oauth ?? {};
    this.file = tokenFilePath(server);
    if (this.settings.clientMetadataUrl) this.clientMetadataUrl = this.settings.clientMetadataUrl;
  }

  get redirectUrl(): string {
    if (this.login) return this.login.redirectUrl;
    return redirectUrisOf(this.storedClient())?.[0] ?? PLACEHOLDER_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.settings.clientSecret !== undefined;
    return {
      client_name: this.settings.clientName ?? 'mcp-offload',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      ...(this.settings.scopes?.length ? { scope: this.settings.scopes.join(' ') } : {}),
    };
  }

  /** The `state` sent with the authorization request; the callback must bring it back. */
  state(): string {
    this.expectedState = randomBytes(24).toString('base64url');
    return this.expectedState;
  }

  get sentState(): string | undefined {
    return this.expectedState;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    if (this.settings.clientId) {
      return {
        client_id: this.settings.clientId,
        ...(this.settings.clientSecret !== undefined ? { client_secret: this.settings.clientSecret } : {}),
      };
    }
    if (this.login && this.registered) return this.registered;
    const stored = this.storedClient();
    if (this.login) {
      // A client registered for another loopback port cannot take this login's redirect: register again.
      const uris = redirectUrisOf(stored);
      return stored && (!uris || uris.includes(this.login.redirectUrl)) ? stored : undefined;
    }
    if (stored) return stored;
    // No client yet: registering one is part of a login, which the proxy cannot do on its own.
    if (!this.clientMetadataUrl) throw loginRequired(this.server, this.origin, 'no login has been stored yet');
    return undefined;
  }

  saveClientInformation(client: StoredOAuthClientInformation): void {
    // A login writes everything at once, with its tokens: a running proxy never sees half a login.
    if (this.login) {
      this.registered = client;
      return;
    }
    updateTokenFile(this.file, (contents) => ({ ...contents, url: this.server.url, client }));
  }

  tokens(): StoredOAuthTokens | undefined {
    if (this.login) return this.fresh;
    const { tokens, url } = readTokenFile(this.file);
    if (!tokens || (url !== undefined && url !== this.server.url)) return undefined;
    if (this.rejected !== undefined && this.rejected === tokens.access_token) return undefined;
    this.offered = tokens.access_token;
    return tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.rejected = undefined;
    if (this.login) {
      this.fresh = tokens;
      const client = this.registered ?? this.clientInformation();
      writeTokenFile(this.file, {
        url: this.server.url,
        tokens,
        savedAt: Date.now(),
        ...(client && !this.settings.clientId ? { client } : {}),
        ...(this.discovered ? { discovery: this.discovered } : {}),
      });
      return;
    }
    updateTokenFile(this.file, ({ wantedScope, ...contents }) => ({
      ...contents,
      // A login asked for the wanted scope; a refresh cannot widen the grant, so it stays wanted.
      ...(wantedScope !== undefined ? { wantedScope } : {}),
      url: this.server.url,
      tokens,
      savedAt: Date.now(),
    }));
  }

  redirectToAuthorization(authorizationUrl: URL): void | Promise<void> {
    if (this.login) return this.login.open(withWantedScope(authorizationUrl, this.readWantedScope()));
    this.recordWantedScope(authorizationUrl.searchParams.get('scope'));
    throw loginRequired(
      this.server,
      this.origin,
      this.readTokens() ? 'its tokens were rejected and could not be refreshed' : 'no login has been stored yet',
    );
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier: the authorization was not started here');
    return this.verifier;
  }

  /**
   * What the SDK found no longer valid. The proxy only stops offering the tokens it offered (the file is the
   * login's, and a later `mcp-offload login` replaces it): tokens another process wrote meanwhile (its refresh won
   * the race for a rotating refresh token) are offered next, and the SDK's retry uses them; a login forgets what it
   * would otherwise reuse.
   */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'tokens') {
      if (this.login) this.fresh = undefined;
      else this.rejected = this.offered ?? this.readTokens()?.access_token;
    }
    if (this.login && (scope === 'all' || scope === 'client')) {
      this.registered = undefined;
      this.ignoreStoredClient = true;
    }
    if (this.login && (scope === 'all' || scope === 'discovery')) this.discovered = undefined;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    // The proxy re-discovers when it must; only a login records where the tokens come from.
    if (this.login) this.discovered = discovery;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    if (this.login) return this.discovered;
    const { discovery, url } = readTokenFile(this.file);
    return url === this.server.url ? discovery : undefined;
  }

  /** Keeps the scope an authorization the proxy could not start asked for, for the next login. */
  private recordWantedScope(scope: string | null): void {
    if (!scope) return;
    try {
      updateTokenFile(this.file, (contents) =>
        contents.wantedScope === scope ? contents : { ...contents, wantedScope: scope },
      );
    } catch {
      // The login is needed either way; the error that says so matters more than this note.
    }
  }

  private readWantedScope(): string | undefined {
    try {
      return readTokenFile(this.file).wantedScope;
    } catch {
      return undefined;
    }
  }

  private storedClient(): StoredOAuthClientInformation | undefined {
    if (this.ignoreStoredClient) return undefined;
    const { client, url } = readTokenFile(this.file);
    return client && (url === undefined || url === this.server.url) ? client : undefined;
  }

  private readTokens(): StoredOAuthTokens | undefined {
    try {
      return readTokenFile(this.file).tokens;
    } catch {
      return undefined;
    }
  }
}

/** The redirect URIs a registered client has (a full registration response carries its metadata). */
function redirectUrisOf(client: StoredOAuthClientInformation | undefined): string[] | undefined {
  const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : undefined;
}

/** The authorization URL asking for `wanted` too (the scopes of both, each once). */
function withWantedScope(url: URL, wanted: string | undefined): URL {
  if (!wanted) return url;
  const scopes = new Set([...(url.searchParams.get('scope') ?? '').split(' '), ...wanted.split(' ')].filter(Boolean));
  const widened = new URL(url);
  widened.searchParams.set('scope', [...scopes].join(' '));
  return widened;
}
