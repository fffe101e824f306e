// The HTTP gateway as an OAuth protected resource (auth.oauth), against a real authorization server (oidc-provider,
// test/fixtures/token-issuer.mjs) and the built CLI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClientCredentialsProvider,
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHttpV2,
} from '@modelcontextprotocol/client';
import { SignJWT, decodeJwt } from 'jose';
import {
  jsonLines,
  leftovers,
  removeArtifactDir,
  runCli,
  startCli,
  stopAllCli,
  type CliProcess,
} from '../helpers/cli.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { freePort } from '../helpers/ports.js';
import { startRedis } from '../helpers/redis-server.js';
import {
  bearer,
  connectHttp,
  connectSse,
  downloadUrlOf,
  linksOf,
  textsOf,
  type HttpClient,
} from '../helpers/sidecar.js';
import { startTokenIssuer, type IssuerClient, type TokenIssuer } from '../helpers/token-issuer.js';

const ALICE: IssuerClient = {
  client_id: 'alice-app',
  client_secret: 'alice-secret-0123456789',
  scope: 'mcp:tools mcp:admin',
};
const BOB: IssuerClient = { client_id: 'bob-app', client_secret: 'bob-secret-0123456789abc', scope: 'mcp:tools' };
const STATIC = { name: 'ci-bot', token: 'static-token-0123456789abcdef' };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-oauth-'));
function writeConfig(name: string, yaml: string): string {
  const file = join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

async function serve(config: string, port = 0): Promise<{ cli: CliProcess; base: string }> {
  const cli = startCli(['--http', `127.0.0.1:${port}`, '--config', config]);
  const [, base] = await cli.waitForStderr(/^mcp-offload listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp$/m);
  return { cli, base: base! };
}

const initializeWith = (base: string, headers: Record<string, string>) =>
  fetch(`${base}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(initialize) });

let issuer: TokenIssuer;
const clientsToClose: HttpClient[] = [];
// One issuer for the whole file: every describe block may run alone (jest -t).
beforeAll(async () => {
  issuer = await startTokenIssuer([ALICE, BOB], 'mcp:tools mcp:admin');
});
afterAll(async () => {
  await stopAllCli();
  await issuer?.stop();
  expect(leftovers()).toEqual([]);
  removeArtifactDir();
  rmSync(dir, { recursive: true, force: true });
});

describe('sidecar with auth.oauth: a protected resource of a real authorization server', () => {
  let base: string;
  let resource: string;
  let metadataUrl: string;
  let proxy: CliProcess;
  const clients: HttpClient[] = [];

  beforeAll(async () => {
    const config = writeConfig(
      'oauth.yaml',
      `servers:
  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}
auth:
  artifactScope: token
  tokens: [{name: ${STATIC.name}, token: ${STATIC.token}}]
  oauth:
    issuer: ${issuer.issuer}
    requiredScopes: [mcp:tools]
    scopesSupported: [mcp:tools, mcp:admin]
`,
    );
    ({ cli: proxy, base } = await serve(config));
    resource = `${base}/mcp`;
    metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  test('the protected-resource metadata (RFC 9728), at the bare and the path-aware well-known path', async () => {
    for (const url of [metadataUrl, `${base}/.well-known/oauth-protected-resource`]) {
      const response = await fetch(url, { headers: { origin: 'https://inspector.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource,
        authorization_servers: [issuer.issuer],
        scopes_supported: ['mcp:tools', 'mcp:admin'],
        bearer_methods_supported: ['header'],
        resource_name: 'mcp-offload',
      });
    }
    expect((await fetch(metadataUrl, { method: 'POST' })).status).toBe(405);
  });

  test('no token: 401 naming the metadata and the scope, without an error code', async () => {
    for (const path of ['/mcp', '/sse', '/artifacts/x', '/metrics']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${metadataUrl}", scope="mcp:tools", realm="mcp-offload"`,
      );
    }
  });

  test("a valid token: tools work, and the artifacts belong to the token's subject, not to the token", async () => {
    const token = await issuer.token(ALICE, resource, 'mcp:tools');
    expect(decodeJwt(token)).toMatchObject({ sub: ALICE.client_id, aud: resource, iss: issuer.issuer });
    const alice = await connectHttp(base, token);
    clients.push(alice);
    const result = await alice.client.callTool({ name: 'image', arguments: { tag: 'alice-oauth' } });
    const uri = linksOf(result)[0]!;
    expect(uri).toMatch(/^artifact:\/\//);
    expect(textsOf(await alice.client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('hi');

    // A second token of the same subject (another jti) is the same owner; artifactScope token shares it.
    const again = await issuer.token(ALICE, resource, 'mcp:tools mcp:admin');
    expect(again).not.toBe(token);
    const alice2 = await connectHttp(base, again);
    clients.push(alice2);
    const read = await alice2.client.readResource({ uri });
    expect(read.contents[0]).toMatchObject({ uri, mimeType: 'image/png' });
    const download = await fetch(`${base}/artifacts/${uri.slice('artifact://'.length)}`, { headers: bearer(again) });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');

    // Another subject sees nothing of it: not listed, not readable, not downloadable.
    const bobToken = await issuer.token(BOB, resource, 'mcp:tools');
    const bob = await connectHttp(base, bobToken);
    clients.push(bob);
    await expect(bob.client.readResource({ uri })).rejects.toThrow(/not found/i);
    const { resources } = await bob.client.listResources();
    expect(resources.map((r) => r.uri)).not.toContain(uri);
    const refused = await fetch(`${base}/artifacts/${uri.slice('artifact://'.length)}`, { headers: bearer(bobToken) });
    expect(refused.status).toBe(404);
    // Nor does a static token, whatever its name.
    const bot = await connectHttp(base, STATIC.token);
    clients.push(bot);
    await expect(bot.client.readResource({ uri })).rejects.toThrow(/not found/i);
    // The signed link in the summary still works without any header.
    expect((await fetch(downloadUrlOf(result))).status).toBe(200);
    // The gallery, for a program holding the token: the subject's artifacts, and only theirs.
    const name = uri.slice(uri.lastIndexOf('/') + 1);
    const gallery = await fetch(`${base}/artifacts`, { headers: bearer(again) });
    expect(gallery.status).toBe(200);
    expect(await gallery.text()).toContain(name);
    const bobGallery = await fetch(`${base}/artifacts`, { headers: bearer(bobToken) });
    expect(bobGallery.status).toBe(200);
    expect(await bobGallery.text()).not.toContain(name);
  });

  test('the legacy SSE transport takes the same access tokens', async () => {
    const sse = await connectSse(base, await issuer.token(BOB, resource, 'mcp:tools'));
    clients.push(sse);
    expect(textsOf(await sse.client.callTool({ name: 'echo', arguments: { message: 'over sse' } }))).toBe('over sse');
    expect((await fetch(`${base}/sse`, { headers: bearer('not-a-jwt-at-all-0123456789') })).status).toBe(401);
  });

  test('bad tokens get 401 invalid_token with the metadata URL: expired, wrong audience, wrong issuer, tampered, alg none, HS256, not a JWT', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = await issuer.token(BOB, resource, 'mcp:tools');
    const [header, payload] = good.split('.') as [string, string, string];
    const claims = decodeJwt(good);
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: ALICE.client_id })).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
    const hs256 = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', kid: 'issuer-key-1' })
      .sign(new TextEncoder().encode('a-shared-secret-anyone-might-guess'));
    const cases: Array<[string, string, RegExp]> = [
      ['expired', await issuer.sign({ ...claims, iat: now - 600, exp: now - 300 }), /has expired/],
      [
        'wrong audience',
        await issuer.token(BOB, 'https://other.example/mcp', 'mcp:tools'),
        /not issued for this resource/,
      ],
      ['wrong issuer', await issuer.sign({ ...claims, iss: 'https://elsewhere.example' }), /another issuer/],
      ['no sub', await issuer.sign({ ...claims, sub: undefined }), /no "sub" claim/],
      ['tampered', `${header}.${forged}.${good.split('.')[2]}`, /signature does not verify/],
      ['alg none', none, /algorithm not accepted/],
      ['HS256', hs256, /algorithm not accepted/],
      ['not a JWT', 'not-a-jwt-at-all-0123456789', /not a valid signed JWT/],
    ];
    for (const [what, token, description] of cases) {
      const response = await initializeWith(base, bearer(token));
      expect([what, response.status]).toEqual([what, 401]);
      const challenge = response.headers.get('www-authenticate')!;
      expect([what, challenge]).toEqual([what, expect.stringContaining(`resource_metadata="${metadataUrl}"`)]);
      expect([what, challenge]).toEqual([what, expect.stringContaining('error="invalid_token"')]);
      expect([what, ((await response.json()) as { error_description: string }).error_description]).toEqual([
        what,
        expect.stringMatching(description),
      ]);
    }
    // The good one, for contrast; scopes in scp (an array) count as in scope; exp and nbf have 30 s of leeway.
    expect((await initializeWith(base, bearer(good))).status).toBe(200);
    const scp = await issuer.sign({ ...claims, scope: undefined, scp: ['mcp:tools'] });
    expect((await initializeWith(base, bearer(scp))).status).toBe(200);
    const justExpired = await issuer.sign({ ...claims, exp: now - 5 });
    expect((await initializeWith(base, bearer(justExpired))).status).toBe(200);
    const notYet = await initializeWith(base, bearer(await issuer.sign({ ...claims, nbf: now + 600 })));
    expect(notYet.status).toBe(401);
    expect(((await notYet.json()) as { error_description: string }).error_description).toMatch(/not valid yet/);
  });

  test('a token without the required scope: 403 insufficient_scope naming it', async () => {
    const token = await issuer.token(ALICE, resource, 'mcp:admin');
    expect(decodeJwt(token).scope).toBe('mcp:admin');
    const response = await initializeWith(base, bearer(token));
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate')!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="mcp:tools"');
    expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
  });

  test('static tokens keep working beside OAuth; a wrong one is an invalid token', async () => {
    const bot = await connectHttp(base, STATIC.token);
    clients.push(bot);
    expect(textsOf(await bot.client.callTool({ name: 'echo', arguments: { message: 'static' } }))).toBe('static');
    const wrong = await initializeWith(base, bearer(`${STATIC.token}x`));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('an SDK v2 client bootstraps by itself: 401 -> protected-resource metadata -> authorization server -> token -> tool call', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: BOB.client_id,
      clientSecret: BOB.client_secret,
      scope: 'mcp:tools',
      expectedIssuer: issuer.issuer,
    });
    const client = new ClientV2({ name: 'oauth-interop', version: '1.0.0' });
    await client.connect(new StreamableHttpV2(new URL(resource), { authProvider: provider }));
    try {
      const result = await client.callTool({ name: 'echo', arguments: { message: 'bootstrapped' } });
      expect(textsOf(result)).toBe('bootstrapped');
      const token = provider.tokens()!.access_token;
      expect(decodeJwt(token)).toMatchObject({ sub: BOB.client_id, aud: resource, scope: 'mcp:tools' });
    } finally {
      await client.close();
    }
  });

  test('audit lines name the subject qualified with the issuer, never a token', async () => {
    const lines = jsonLines(proxy.stderr()).filter((l) => l.audit === true);
    const created = lines.find((l) => l.msg === 'artifact.created' || l.event === 'artifact.created');
    expect(JSON.stringify(created)).toContain(`oauth:${ALICE.client_id}@${issuer.issuer}`);
    expect(proxy.stderr()).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });
});

describe('sidecar with auth.oauth: an issuer that cannot be reached, and bad configs', () => {
  test('an unreachable issuer: 503 naming it, a log line with the URL, the process keeps serving and recovers when the issuer comes up', async () => {
    const port = await freePort();
    const gone = `http://127.0.0.1:${port}`;
    const config = writeConfig(
      'gone.yaml',
      `servers:\n  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}\nauth:\n  oauth: {issuer: "${gone}"}\n`,
    );
    const { cli, base } = await serve(config);
    const token = await issuer.sign({
      sub: 'x',
      iss: gone,
      aud: `${base}/mcp`,
      exp: Math.floor(Date.now() / 1000) + 60,
    });
    const response = await initializeWith(base, bearer(token));
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('temporarily_unavailable');
    expect(body.error_description).toContain(gone);
    // Without a token, no issuer is needed to say so.
    expect((await initializeWith(base, {})).status).toBe(401);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const logged = jsonLines(cli.stderr()).find((l) => l.msg === 'OAuth token not checked: issuer unavailable');
    expect(String(logged?.url)).toContain(gone);
    expect(
      jsonLines(cli.stderr()).some(
        (l) => l.msg === 'OAuth issuer not reachable yet; requests with tokens get 503 until it is',
      ),
    ).toBe(true);

    // The issuer comes up: its tokens are accepted, no restart needed.
    const late = await startTokenIssuer([BOB], 'mcp:tools', { port });
    try {
      expect(late.issuer).toBe(gone);
      const client = await connectHttp(base, await late.token(BOB, `${base}/mcp`, 'mcp:tools'));
      expect(textsOf(await client.client.callTool({ name: 'echo', arguments: { message: 'up' } }))).toBe('up');
      await client.close();
    } finally {
      await late.stop();
      await cli.stop();
    }
  });

  test('an unreachable JWKS (the metadata fine): 503 naming the JWKS URL, never the token let through', async () => {
    const jwks = `http://127.0.0.1:${await freePort()}/jwks`;
    const config = writeConfig(
      'no-jwks.yaml',
      `servers:\n  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}\nauth:\n  oauth: {issuer: "${issuer.issuer}", jwksUri: "${jwks}"}\n`,
    );
    const { cli, base } = await serve(config);
    try {
      const response = await initializeWith(base, bearer(await issuer.token(BOB, `${base}/mcp`, 'mcp:tools')));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(((await response.json()) as { error_description: string }).error_description).toContain(jwks);
      const logged = jsonLines(cli.stderr()).filter((l) => String(l.url).includes(jwks));
      expect(logged.length).toBeGreaterThan(0);
    } finally {
      await cli.stop();
    }
  });

  test('config mistakes are errors at file:line; a wildcard address needs the resource URL; http only on loopback', async () => {
    const bad = writeConfig(
      'bad.yaml',
      `servers:\n  art: {command: node}\nauth:\n  oauth:\n    issuer: https://id.example.com\n    algorithms: [HS256]\n    requiredScopes: ["two words"]\n    audiences: x\n`,
    );
    const out = await runCli(['validate', '--config', bad]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(new RegExp(`${bad}:6:\\d+: .*(HS256|RS256)`));
    expect(out.stderr).toMatch(new RegExp(`${bad}:7:\\d+: `));
    expect(out.stderr).toMatch(new RegExp(`${bad}:8:\\d+: .*audiences`));
    const missingIssuer = writeConfig('no-issuer.yaml', `servers:\n  art: {command: node}\nauth:\n  oauth: {}\n`);
    expect((await runCli(['validate', '--config', missingIssuer])).stderr).toMatch(/:4:\d+: .*issuer/);

    const wildcard = writeConfig(
      'wildcard.yaml',
      `servers:\n  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}\nauth:\n  oauth: {issuer: "https://id.example.com"}\n`,
    );
    const refused = await runCli(['--http', '0.0.0.0:0', '--config', wildcard]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/set auth\.oauth\.resource/);
    const plain = writeConfig(
      'plain.yaml',
      `servers:\n  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}\nauth:\n  oauth: {issuer: "http://id.example.com"}\n`,
    );
    const insecure = await runCli(['--http', '127.0.0.1:0', '--config', plain]);
    expect(insecure.code).toBe(1);
    expect(insecure.stderr).toMatch(/auth\.oauth\.issuer must be an https URL/);
  });
});

describe('sidecar with auth.oauth: the owner comes from the token alone', () => {
  test('after a restart (or on another replica) the same subject, with a new token, owns the same artifacts', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const config = writeConfig(
      'restart.yaml',
      `servers:
  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}
auth:
  artifactScope: token
  oauth: {issuer: "${issuer.issuer}", resource: "${resource}"}
`,
    );
    const first = await serve(config, port);
    const alice = await connectHttp(first.base, await issuer.token(ALICE, resource, 'mcp:tools'));
    const uri = linksOf(await alice.client.callTool({ name: 'image', arguments: { tag: 'before-restart' } }))[0]!;
    await alice.close();
    await first.cli.stop();

    const second = await serve(config, port);
    const again = await connectHttp(second.base, await issuer.token(ALICE, resource, 'mcp:tools'));
    const bob = await connectHttp(second.base, await issuer.token(BOB, resource, 'mcp:tools'));
    try {
      expect((await again.client.readResource({ uri })).contents[0]).toMatchObject({ uri, mimeType: 'image/png' });
      await expect(bob.client.readResource({ uri })).rejects.toThrow(/not found/i);
    } finally {
      await Promise.all([again.close(), bob.close()]);
      await second.cli.stop();
    }
  });
});

describe('sidecar with auth.oauth: two replicas sharing sessions through Redis', () => {
  test('a session opened with an access token on one replica is served through the other for the same subject only', async () => {
    const redis = await startRedis();
    const resource = 'https://tools.example.com/mcp';
    const config = writeConfig(
      'replicas.yaml',
      `servers:
  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}
auth:
  oauth: {issuer: "${issuer.issuer}", resource: "${resource}"}
redis: {url: "${redis.url}", keyPrefix: "oauth-replicas-test:", heartbeatMs: 1000}
`,
    );
    const [a, b] = await Promise.all([serve(config), serve(config)]);
    try {
      const token = await issuer.token(ALICE, resource, 'mcp:tools');
      const alice = await connectHttp(a.base, token);
      clientsToClose.push(alice);
      const call = (base: string, bearerToken: string) =>
        fetch(`${base}/mcp`, {
          method: 'POST',
          headers: {
            ...MCP_HEADERS,
            ...bearer(bearerToken),
            'mcp-session-id': alice.sessionId,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: { name: 'echo', arguments: { message: 'through b' } },
          }),
        });
      // Another token of the same subject, through the other replica: the same principal, so the same session.
      const viaB = await call(b.base, await issuer.token(ALICE, resource, 'mcp:tools'));
      expect(viaB.status).toBe(200);
      expect(await viaB.text()).toContain('through b');
      const bobViaB = await call(b.base, await issuer.token(BOB, resource, 'mcp:tools'));
      expect(bobViaB.status).toBe(404);
      expect(await bobViaB.text()).toContain('Session not found');
    } finally {
      await Promise.all(clientsToClose.splice(0).map((c) => c.close()));
      await Promise.all([a.cli.stop(), b.cli.stop()]);
      await redis.stop();
    }
  });
});

describe('sidecar with auth.oauth: key rotation', () => {
  // jose fetches the JWKS again for an unknown key id at most every 30 s after a fetch (so a flood of made-up key ids
  // cannot turn the gateway against its issuer): the new key is waited for past that, without asserting when.
  const COOLDOWN_MS = 31_000;

  test('the issuer comes back with a new signing key: its tokens are accepted without a restart', async () => {
    const port = await freePort();
    const first = await startTokenIssuer([BOB], 'mcp:tools', { port, kid: 'before-rotation' });
    const config = writeConfig(
      'rotation.yaml',
      `servers:\n  art: {command: ${NODE}, args: [${FIXTURES.artifact}]}\nauth:\n  oauth: {issuer: "${first.issuer}"}\n`,
    );
    const { cli, base } = await serve(config);
    const resource = `${base}/mcp`;
    let second: TokenIssuer | undefined;
    try {
      expect((await initializeWith(base, bearer(await first.token(BOB, resource, 'mcp:tools')))).status).toBe(200);
      await first.stop();
      second = await startTokenIssuer([BOB], 'mcp:tools', { port, kid: 'after-rotation' });
      const rotated = await second.token(BOB, resource, 'mcp:tools');
      await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS));
      expect((await initializeWith(base, bearer(rotated))).status).toBe(200);
      // A token signed with the withdrawn key that this gateway never saw is refused now.
      const stale = await initializeWith(
        base,
        bearer(
          await first.sign({
            sub: BOB.client_id,
            iss: first.issuer,
            aud: resource,
            exp: Math.floor(Date.now() / 1000) + 60,
          }),
        ),
      );
      expect(stale.status).toBe(401);
      expect(stale.headers.get('www-authenticate')).toContain('error="invalid_token"');
    } finally {
      await second?.stop();
      await cli.stop();
    }
  }, 90_000);
});
