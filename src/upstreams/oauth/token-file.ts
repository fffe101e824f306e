import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../../config/types.js';

/** What is kept per server: the tokens, the client the authorization server knows us as, and where it is. */
export interface TokenFileContents {
  /** The server's URL when the file was written: tokens are for that resource only. */
  url?: string;
  tokens?: StoredOAuthTokens;
  /** When the tokens were saved (ms since the epoch), so `expires_in` can be read as a time. */
  savedAt?: number;
  client?: StoredOAuthClientInformation;
  discovery?: OAuthDiscoveryState;
  /**
   * The scope the running proxy found it needs and could not get without the user (a step-up challenge, RFC 6750
   * `insufficient_scope`): the next login asks for it too.
   */
  wantedScope?: string;
}

/** A token file that cannot be read or written, with the file's path in the message. */
export class TokenFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'TokenFileError';
  }
}

/**
 * $XDG_CONFIG_HOME/mcp-offload/oauth (or ~/.config/...): the tokens are credentials, kept with the user's
 * configuration rather than in a temporary directory another user could read or a reboot would empty.
 */
export function defaultTokenDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'mcp-offload', 'oauth');
}

/**
 * The server's token file: `oauth.tokenFile`, else `<name>-<hash of the url>.json` in the default directory. The
 * url is part of the name so two configs that call different servers by one name do not share tokens.
 */
export function tokenFilePath(server: Pick<HttpServerConfig, 'name' | 'url' | 'oauth'>, env = process.env): string {
  if (server.oauth?.tokenFile) return server.oauth.tokenFile;
  const hash = createHash('sha256').update(server.url).digest('hex').slice(0, 12);
  const name = server.name.replace(/[^A-Za-z0-9_.-]+/g, '_');
  return join(defaultTokenDir(env), `${name}-${hash}.json`);
}

/** The file's contents; an absent file is empty. A file that is not ours to read, or not JSON, is an error. */
export function readTokenFile(file: string): TokenFileContents {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new TokenFileError(file, `cannot read the token file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new TokenFileError(file, `the token file ${file} is not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new TokenFileError(file, `the token file ${file} does not hold a JSON object`);
  return parsed as TokenFileContents;
}

/**
 * Writes the whole file: a new file beside it with mode 0600, renamed over it, so a reader never sees half a file
 * and the tokens are never readable by others, not even for a moment. The directory is created 0700.
 */
export function writeTokenFile(file: string, contents: TokenFileContents): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600); // a umask cannot widen it, but a leftover file of the same name could have
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new TokenFileError(file, `cannot write the token file ${file}: ${(error as Error).message}`);
  }
}

/** Changes one part of the file, re-reading the rest first (the proxy and `login` may both write it). */
export function updateTokenFile(file: string, change: (contents: TokenFileContents) => TokenFileContents): void {
  writeTokenFile(file, change(readTokenFile(file)));
}

/** Deletes the file; true if there was one. */
export function removeTokenFile(file: string): boolean {
  try {
    rmSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new TokenFileError(file, `cannot delete the token file ${file}: ${(error as Error).message}`);
  }
}

/** The file's modification time and size, to notice a new login; undefined when there is no file. */
export function tokenFileStamp(file: string): string | undefined {
  try {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return undefined;
  }
}
