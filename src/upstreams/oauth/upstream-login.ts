import { existsSync, unwatchFile, watchFile } from 'node:fs';
import { OAuthClientFlowError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../../config/types.js';
import { nameFromUrl } from '../../config/server-name.js';
import { causeChain } from '../../rpc/errors.js';
import type { BearerChallenge } from '../../transports/http-auth.js';
import { authFailureOf, loginRequired, LoginRequiredError, type ServerOrigin } from './login-required.js';
import { TokenFileProvider } from './provider.js';
import { tokenFilePath, tokenFileStamp } from './token-file.js';

/** How often a server waiting for a login looks at its token file. */
const WATCH_INTERVAL_MS = 1000;

/**
 * The token file and login command of each server, fixed by its first connection: a wrapped URL that names nothing
 * is renamed after its serverInfo once connected, and the connections opened later for single clients must still
 * use the file `mcp-offload login --url` writes.
 */
const FIXED = new WeakMap<HttpServerConfig, { tokenFile: string; origin: ServerOrigin }>();

/** What a wrapped URL is called when the URL names nothing (see cli/single-server.ts). */
const STAND_IN_NAME = 'server';

/**
 * One remote upstream's side of OAuth: whether its connections carry the SDK's OAuth provider, how a failed
 * connection is told apart as "needs a login", and the watch on its token file while it waits for one.
 *
 * A server configured with `oauth` always gets the provider. One without it gets the provider once its token file
 * exists (a user who ran `mcp-offload login` for it wants it used); until then its requests go out as before, and a
 * 401 with a Bearer challenge only marks it as needing that login.
 */
export class UpstreamLogin {
  /** Fixed at start: a wrapped server renamed after its serverInfo keeps the file its login wrote. */
  readonly tokenFile: string;
  readonly origin: ServerOrigin;
  private tokens?: TokenFileProvider;
  /** The wire of the last connection: what its server answered about authorization. */
  private wire?: { lastChallenge?: BearerChallenge; authFailure?: Error };
  private watching?: { stamp: string | undefined; listener: () => void };
  /** Whether the last connection carried the provider (else it carried the watching fetch). */
  private withProvider = false;

  constructor(private readonly config: HttpServerConfig) {
    let fixed = FIXED.get(config);
    if (!fixed) {
      const defaultName = nameFromUrl(config.url) ?? STAND_IN_NAME;
      const origin: ServerOrigin = config.source?.file
        ? { configFile: config.source.file }
        : config.name !== defaultName && !config.nameFromServerInfo
          ? { cliName: config.name }
          : {};
      fixed = { tokenFile: tokenFilePath(config), origin };
      FIXED.set(config, fixed);
    }
    this.tokenFile = fixed.tokenFile;
    this.origin = fixed.origin;
  }

  /** The OAuth provider of the next connection, if it gets one. */
  provider(): TokenFileProvider | undefined {
    if (this.config.oauth !== undefined || existsSync(this.tokenFile)) {
      this.tokens ??= new TokenFileProvider(
        { name: this.config.name, url: this.config.url, oauth: { ...this.config.oauth, tokenFile: this.tokenFile } },
        this.origin,
      );
      this.withProvider = true;
      return this.tokens;
    }
    this.withProvider = false;
    return undefined;
  }

  /** The wire of the connection being made: its server's challenges and the provider's failures tell a login. */
  observe(wire: { lastChallenge?: BearerChallenge; authFailure?: Error }): void {
    this.wire = wire;
  }

  /** The login error a failed connection or request amounts to, if it is one. */
  failure(error: unknown): LoginRequiredError | undefined {
    const found = authFailureOf(error) ?? authFailureOf(this.wire?.authFailure);
    if (found instanceof LoginRequiredError) return found;
    if (found instanceof OAuthClientFlowError)
      return loginRequired(this.config, this.origin, `its authorization failed: ${found.message}`);
    if (found) return loginRequired(this.config, this.origin, found.message);
    if (!this.withProvider) {
      const challenge = this.wire?.lastChallenge;
      return challenge && isUnauthorized(error)
        ? loginRequired(this.config, this.origin, 'it answered 401 with an OAuth Bearer challenge')
        : undefined;
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpAuthentication)
      return loginRequired(this.config, this.origin, 'the server rejected the stored tokens');
    return undefined;
  }

  /** Calls `changed` once the token file changes (a login wrote it), polling so a missing directory is fine. */
  watch(changed: () => void): void {
    this.unwatch();
    const listener = () => {
      const stamp = tokenFileStamp(this.tokenFile);
      if (!this.watching || stamp === this.watching.stamp || stamp === undefined) return;
      this.unwatch();
      changed();
    };
    this.watching = { stamp: tokenFileStamp(this.tokenFile), listener };
    watchFile(this.tokenFile, { interval: WATCH_INTERVAL_MS, persistent: false }, listener);
  }

  /** Whether the token file changed since the watch began (a call checks before it waits for the poll). */
  changedSinceWatch(): boolean {
    return this.watching !== undefined && tokenFileStamp(this.tokenFile) !== this.watching.stamp;
  }

  unwatch(): void {
    if (!this.watching) return;
    unwatchFile(this.tokenFile, this.watching.listener);
    this.watching = undefined;
  }
}

function isUnauthorized(error: unknown): boolean {
  for (const current of causeChain(error, 8)) {
    const status = (current as { data?: { status?: unknown }; status?: unknown }).data?.status;
    if (status === 401 || (current as { status?: unknown }).status === 401) return true;
    if (/\b401\b/.test(String((current as Error).message))) return true;
  }
  return false;
}
