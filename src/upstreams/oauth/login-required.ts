import { InsufficientScopeError, OAuthClientFlowError, UnauthorizedError } from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../../config/types.js';
import { causeChain } from '../../rpc/errors.js';
import { TokenFileError } from './token-file.js';

/**
 * The server wants a login the proxy cannot do on its own (it has no browser and no user): the message names
 * the command that does it.
 */
export class LoginRequiredError extends Error {
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
    this.name = 'LoginRequiredError';
  }
}

/** Where the server came from, to name a login command that finds it again. */
export interface ServerOrigin {
  /** The config file, when the server is one of its servers. */
  configFile?: string;
  /** `--name` given with `--url`. */
  cliName?: string;
}

/** The command that logs in to `server`: by name from its config file, or by `--url` for a wrapped URL. */
export function loginCommand(server: Pick<HttpServerConfig, 'name' | 'url'>, origin: ServerOrigin): string {
  if (origin.configFile) return `mcp-offload login ${shellWord(server.name)} --config ${shellWord(origin.configFile)}`;
  return `mcp-offload login --url ${shellWord(server.url)}${origin.cliName ? ` --name ${shellWord(origin.cliName)}` : ''}`;
}

export function loginRequired(
  server: Pick<HttpServerConfig, 'name' | 'url'>,
  origin: ServerOrigin,
  why: string,
): LoginRequiredError {
  const command = loginCommand(server, origin);
  return new LoginRequiredError(`server "${server.name}" needs a login (${why}): run ${command}`, command);
}

/** A word as a POSIX shell reads it back: quoted only when it has to be. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The error (or one of its causes) that says a login is needed: ours, the SDK's UnauthorizedError (a 401 the
 * provider could not answer), an unreadable token file, or an authorization the SDK gave up on for what the
 * authorization server said of itself (OAuthClientFlowError: an issuer that does not match its metadata's URL, a
 * registration refused, a token endpoint that is not HTTPS, another server than the one the login used). Those do
 * not pass by trying again on a timer, each try discovering the server's metadata anew; a login shows the user why.
 * A step-up's InsufficientScopeError is not one: a provider asks for the scope itself.
 */
export function authFailureOf(
  error: unknown,
): LoginRequiredError | UnauthorizedError | TokenFileError | OAuthClientFlowError | undefined {
  for (const current of causeChain(error, 8)) {
    if (current instanceof LoginRequiredError || current instanceof TokenFileError) return current;
    if (current instanceof UnauthorizedError) return current;
    if (current instanceof OAuthClientFlowError && !(current instanceof InsufficientScopeError)) return current;
  }
  return undefined;
}
