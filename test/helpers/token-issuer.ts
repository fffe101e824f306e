// A real authorization server (test/fixtures/token-issuer.mjs, oidc-provider) as a child process, and tokens: from
// its token endpoint (client credentials with a resource indicator), or made with its own signing key to differ
// from a good token in exactly one way (expired, another issuer), which no well-behaved issuer would hand out.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWTPayload } from 'jose';

/** oidc-provider supports Node 22 and later; the conformance suite brings that binary. */
export const NODE22 = fileURLToPath(new URL('../conformance/node_modules/node/bin/node', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/token-issuer.mjs', import.meta.url));

export interface IssuerClient {
  client_id: string;
  client_secret: string;
  /** The scopes it may be granted (space-separated). */
  scope: string;
}

export interface TokenIssuer {
  issuer: string;
  /** An access token from the token endpoint, for `resource`. */
  token(client: IssuerClient, resource: string, scope: string): Promise<string>;
  /** A token signed with the issuer's own key, claims as given (plus iat and a kid header). */
  sign(claims: JWTPayload): Promise<string>;
  stop(): Promise<void>;
}

/** `port`: a fixed one (to come up where an issuer was expected); `kid`: the signing key's id (a new one rotates). */
export async function startTokenIssuer(
  clients: IssuerClient[],
  scopes: string,
  { port, kid = 'issuer-key-1' }: { port?: number; kid?: string } = {},
): Promise<TokenIssuer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const child: ChildProcess = spawn(NODE22, [FIXTURE], {
    env: { ...process.env, TOKEN_ISSUER_CONFIG: JSON.stringify({ signingKey, clients, scopes, port }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const match = /token issuer listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the token issuer exited:\n${stderr}`)));
  });
  const endpoint = `${issuer}/token`;
  return {
    issuer,
    token: async (client, resource, scope) => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token from ${endpoint}: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    sign: (claims) => signWith(privateKey, kid, claims),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function signWith(key: CryptoKey, kid: string, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).setIssuedAt().sign(key);
}
