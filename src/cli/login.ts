import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../config/types.js';
import { PROXY_IDENTITY } from '../upstreams/client-identity.js';
import { causeChain } from '../rpc/errors.js';
import { FIRST_MODERN_PROTOCOL_VERSION } from '../protocol/versions.js';
import { TokenFileProvider, type LoginHooks } from '../upstreams/oauth/provider.js';
import { UpstreamLogin } from '../upstreams/oauth/upstream-login.js';
import { removeTokenFile, TokenFileError } from '../upstreams/oauth/token-file.js';
import { listenForCallback } from './callback-server.js';
import { openBrowser } from './browser.js';

/** How long `login` waits for the browser to come back, unless `oauth.loginTimeoutMs` says otherwise. */
const LOGIN_TIMEOUT_MS = 300_000;

/** A login that did not complete, with what the user should know. */
class LoginFailed extends Error {}

/**
 * `mcp-offload login`: the authorization code flow with PKCE against the server, the browser as the user's agent
 * and a loopback listener for its redirect; the tokens go to the server's token file, which a running proxy
 * picks up. Resolves with the exit code; what went wrong is one line on stderr.
 */
export async function runLogin(
  server: HttpServerConfig,
  stderr: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const upstream = new UpstreamLogin(server);
  const settings = { ...server.oauth, tokenFile: upstream.tokenFile };
  const pinned = { name: server.name, url: server.url, oauth: settings };
  let callback;
  try {
    callback = await listenForCallback(settings.callbackPort ?? 0);
  } catch (error) {
    stderr.write(
      `mcp-offload login: cannot listen on 127.0.0.1:${settings.callbackPort ?? 0} for the browser's redirect: ${(error as Error).message}\n`,
    );
    return 1;
  }
  let redirected = false;
  const hooks: LoginHooks = {
    redirectUrl: callback.redirectUrl,
    open: (url) => {
      redirected = true;
      const opened = openBrowser(url.href);
      stderr.write(
        `To log in to "${server.name}", open this URL${opened ? ' (a browser was started)' : ''}:\n\n  ${url.href}\n\n` +
          `Waiting for the browser to come back to ${callback.redirectUrl} ...\n`,
      );
    },
  };
  const provider = new TokenFileProvider(pinned, upstream.origin, hooks);
  const transport = remoteTransport(server, provider);
  const client = loginClient(server);
  const timeoutMs = settings.loginTimeoutMs ?? LOGIN_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  try {
    try {
      await client.connect(transport, { timeout: timeoutMs });
      // No 401: nothing to log in to (or the server is open to everyone).
      await client.close();
      stderr.write(
        `mcp-offload login: server "${server.name}" (${server.url}) accepted the connection without a login; nothing stored\n`,
      );
      return 0;
    } catch (error) {
      if (!isUnauthorized(error) || !redirected) throw error;
    }
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new LoginFailed(
              `no answer from the browser within ${Math.round(timeoutMs / 1000)} s; run the command again`,
            ),
          ),
        timeoutMs,
      );
    });
    const params = await Promise.race([callback.received, timeout]);
    const refused = params.get('error');
    if (refused) {
      const description = params.get('error_description');
      throw new LoginFailed(`the authorization server refused: ${refused}${description ? ` (${description})` : ''}`);
    }
    if (params.get('state') !== provider.sentState)
      throw new LoginFailed(
        'the answer carried another state than the request (a stale or forged redirect); nothing stored',
      );
    if (!params.get('code')) throw new LoginFailed('the answer carried no authorization code');
    await transport.finishAuth(params);
    await transport.close().catch(() => undefined);
    // The tokens are only as good as the server says: connect once with them, as the proxy will.
    const check = remoteTransport(server, new TokenFileProvider(pinned, upstream.origin));
    const checker = loginClient(server);
    await checker.connect(check, { timeout: timeoutMs });
    await checker.close();
    stderr.write(`mcp-offload: logged in to "${server.name}"; the tokens are in ${upstream.tokenFile}\n`);
    return 0;
  } catch (error) {
    const why = error instanceof LoginFailed || error instanceof TokenFileError ? error.message : describe(error);
    stderr.write(`mcp-offload login: logging in to "${server.name}" (${server.url}) failed: ${why}\n`);
    return 1;
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
    await callback.close();
  }
}

/** `mcp-offload logout`: forgets the server's tokens and client registration. */
export function runLogout(server: HttpServerConfig, stderr: NodeJS.WritableStream = process.stderr): number {
  const { tokenFile } = new UpstreamLogin(server);
  try {
    const removed = removeTokenFile(tokenFile);
    stderr.write(
      removed
        ? `mcp-offload: logged out of "${server.name}" (deleted ${tokenFile})\n`
        : `mcp-offload: no stored login for "${server.name}" (${tokenFile} does not exist)\n`,
    );
    return 0;
  } catch (error) {
    stderr.write(`mcp-offload logout: ${(error as Error).message}\n`);
    return 1;
  }
}

/**
 * The login is the SDK client's own OAuth flow (its transports call the provider, which opens the browser): a CLI
 * command of its own, outside the relay, so it uses the SDK's client and transports as any MCP client would.
 */
function remoteTransport(
  server: HttpServerConfig,
  provider: TokenFileProvider,
): StreamableHTTPClientTransport | SSEClientTransport {
  const options = { requestInit: { headers: server.headers }, authProvider: provider };
  const url = new URL(server.url);
  return server.transport === 'sse'
    ? new SSEClientTransport(url, options)
    : new StreamableHTTPClientTransport(url, options);
}

function loginClient(server: HttpServerConfig): Client {
  const protocol = server.protocol ?? 'auto';
  return new Client(PROXY_IDENTITY.clientInfo, {
    capabilities: PROXY_IDENTITY.capabilities,
    versionNegotiation: {
      mode: protocol === 'legacy' ? 'legacy' : protocol === 'modern' ? { pin: FIRST_MODERN_PROTOCOL_VERSION } : 'auto',
    },
  });
}

/** An error with what caused it, which for network failures is where the reason is. */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (const current of causeChain(error, 4)) {
    const message = current instanceof Error ? current.message : String(current);
    if (!parts.includes(message)) parts.push(message);
  }
  return parts.join(': ');
}

function isUnauthorized(error: unknown): boolean {
  for (const current of causeChain(error, 6)) if (current instanceof UnauthorizedError) return true;
  return false;
}
