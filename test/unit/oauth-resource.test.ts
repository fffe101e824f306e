import { defaultConfig, DEFAULTS, type Config } from '../../src/config/types.js';
import { exposureProblem } from '../../src/http/auth.js';
import { challenge } from '../../src/http/oauth/challenge.js';
import { OAuthGate } from '../../src/http/oauth/oauth-gate.js';
import { silentLogger } from '../../src/logger.js';
import { metadataPaths, protectedResourceMetadata } from '../../src/http/oauth/protected-resource.js';
import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/server';
import { oauthProblem, resourceUrl } from '../../src/http/oauth/resource-url.js';
import { VerifiedTokens } from '../../src/http/oauth/verified-tokens.js';

const ISSUER = 'https://auth.example.com';

function config(adjust: (c: Config) => void = () => undefined): Config {
  const c = defaultConfig();
  c.auth.oauth = { issuer: ISSUER };
  adjust(c);
  return c;
}

describe('the resource URL and where its metadata is', () => {
  test('configured, else artifacts.publicUrl, else the listen address (never the per-replica advertiseUrl); ending in /mcp', () => {
    const listened = { host: '127.0.0.1', port: 8080 };
    expect(resourceUrl({ issuer: ISSUER }, config(), listened).href).toBe('http://127.0.0.1:8080/mcp');
    expect(resourceUrl({ issuer: ISSUER }, config(), { host: '::1', port: 8080 }).href).toBe('http://[::1]:8080/mcp');
    const advertised = config((c) => (c.httpOptions.advertiseUrl = 'http://10.0.0.5:8080'));
    expect(resourceUrl(advertised.auth.oauth!, advertised, listened).href).toBe('http://127.0.0.1:8080/mcp');
    const published = config((c) => {
      c.httpOptions.advertiseUrl = 'http://10.0.0.5:8080';
      c.artifacts.publicUrl = 'https://tools.example.com/offload/';
    });
    expect(resourceUrl(published.auth.oauth!, published, listened).href).toBe('https://tools.example.com/offload/mcp');
    const configured = config((c) => {
      c.artifacts.publicUrl = 'https://tools.example.com/offload';
      c.auth.oauth!.resource = 'https://mcp.example.com/mcp';
    });
    expect(resourceUrl(configured.auth.oauth!, configured, listened).href).toBe('https://mcp.example.com/mcp');
    expect(() => resourceUrl({ issuer: ISSUER }, config(), { host: '0.0.0.0', port: 8080 })).toThrow(
      /set auth\.oauth\.resource/,
    );
  });

  test('the metadata URL is path-aware (RFC 9728 §3.1), and served at the bare path, /mcp and the resource path', () => {
    const resource = new URL('https://tools.example.com/offload/mcp');
    expect(getOAuthProtectedResourceMetadataUrl(resource)).toBe(
      'https://tools.example.com/.well-known/oauth-protected-resource/offload/mcp',
    );
    expect([...metadataPaths(resource)].sort()).toEqual([
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource/offload/mcp',
    ]);
  });

  test('the document: scopes_supported defaults to requiredScopes and is left out when there are none', () => {
    const resource = 'https://tools.example.com/mcp';
    expect(protectedResourceMetadata({ issuer: ISSUER }, resource)).toEqual({
      resource: 'https://tools.example.com/mcp',
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      resource_name: 'mcp-offload',
    });
    expect(protectedResourceMetadata({ issuer: ISSUER, requiredScopes: ['a'] }, resource).scopes_supported).toEqual([
      'a',
    ]);
    const both = protectedResourceMetadata(
      { issuer: ISSUER, requiredScopes: ['a'], scopesSupported: ['a', 'b'] },
      resource,
    );
    expect(both.scopes_supported).toEqual(['a', 'b']);
  });
  test('a configured resource is announced as written: a bare origin gains no slash the tokens would lack', () => {
    const gate = new OAuthGate({ issuer: ISSUER, resource: 'https://tools.example.com' }, config(), silentLogger);
    gate.bind({ host: '127.0.0.1', port: 8080 });
    expect(gate.metadataAt('/.well-known/oauth-protected-resource')).toMatchObject({
      resource: 'https://tools.example.com',
    });
    expect(gate.metadataUrl).toBe('https://tools.example.com/.well-known/oauth-protected-resource');
    expect(gate.metadataAt('/.well-known/oauth-protected-resource/other')).toBeUndefined();
  });
});

describe('startup checks', () => {
  test('auth.oauth counts as authentication beyond loopback', () => {
    expect(exposureProblem('0.0.0.0', [], { ...DEFAULTS.auth, oauth: { issuer: ISSUER } })).toBeUndefined();
    expect(exposureProblem('0.0.0.0', [], DEFAULTS.auth)).toMatch(/auth\.oauth/);
  });

  test('https issuer and JWKS, except on this machine; a wildcard address needs a resource URL', () => {
    expect(oauthProblem(undefined, config(), '0.0.0.0')).toBeUndefined();
    expect(oauthProblem({ issuer: ISSUER }, config(), '127.0.0.1')).toBeUndefined();
    expect(oauthProblem({ issuer: 'http://127.0.0.1:9000' }, config(), '127.0.0.1')).toBeUndefined();
    expect(oauthProblem({ issuer: 'http://localhost:9000/realms/x' }, config(), '127.0.0.1')).toBeUndefined();
    expect(oauthProblem({ issuer: 'http://auth.example.com' }, config(), '127.0.0.1')).toMatch(
      /auth\.oauth\.issuer must be an https URL/,
    );
    expect(oauthProblem({ issuer: ISSUER, jwksUri: 'http://keys.example.com/jwks' }, config(), '127.0.0.1')).toMatch(
      /auth\.oauth\.jwksUri must be an https URL/,
    );
    expect(oauthProblem({ issuer: ISSUER }, config(), '0.0.0.0')).toMatch(/set auth\.oauth\.resource/);
    expect(oauthProblem({ issuer: ISSUER }, config(), '::')).toMatch(/set auth\.oauth\.resource/);
    expect(oauthProblem({ issuer: ISSUER, resource: 'https://x.example/mcp' }, config(), '0.0.0.0')).toBeUndefined();
    const published = config((c) => (c.artifacts.publicUrl = 'https://x.example'));
    expect(oauthProblem({ issuer: ISSUER }, published, '0.0.0.0')).toBeUndefined();
    // Replicas must agree on one resource; their advertiseUrls differ.
    const replicas = config((c) => {
      c.redis = { url: 'redis://127.0.0.1:6379', ...DEFAULTS.redis };
      c.httpOptions.advertiseUrl = 'http://10.0.0.5:8080';
    });
    expect(oauthProblem({ issuer: ISSUER }, replicas, '127.0.0.1')).toMatch(/with redis, every replica/);
    expect(oauthProblem({ issuer: ISSUER, resource: 'https://x.example/mcp' }, replicas, '127.0.0.1')).toBeUndefined();
  });
});

describe('challenges', () => {
  const url = 'https://x.example/.well-known/oauth-protected-resource/mcp';
  test('no error code without credentials; error and description for a bad token; scope when required', () => {
    expect(challenge({ kind: 'missing' }, url, [])).toBe(`Bearer resource_metadata="${url}", realm="mcp-offload"`);
    expect(challenge({ kind: 'invalid_token', description: 'expired' }, url, ['a', 'b'])).toBe(
      `Bearer resource_metadata="${url}", scope="a b", error="invalid_token", error_description="expired", realm="mcp-offload"`,
    );
  });
  test('quoted-string content is escaped, control characters dropped', () => {
    expect(challenge({ kind: 'invalid_token', description: 'a "b" \\ c\r\nd' }, url, [])).toContain(
      'error_description="a \\"b\\" \\\\ cd"',
    );
  });
});

describe('verified tokens', () => {
  test('remembered until their exp, then forgotten', () => {
    const tokens = new VerifiedTokens();
    const info = { token: 't', clientId: 'c', scopes: [] };
    tokens.add('t', info, 1000);
    expect(tokens.get('t', 999)).toBe(info);
    expect(tokens.get('t', 1000)).toBeUndefined();
    expect(tokens.get('t', 999)).toBeUndefined();
  });
  test('at most 10 000, the oldest dropped first', () => {
    const tokens = new VerifiedTokens();
    for (let i = 0; i <= 10_000; i += 1) tokens.add(`t${i}`, { token: `t${i}`, clientId: '', scopes: [] }, 5000);
    expect(tokens.get('t0', 1)).toBeUndefined();
    expect(tokens.get('t1', 1)).toBeDefined();
    expect(tokens.get('t10000', 1)).toBeDefined();
  });
});
