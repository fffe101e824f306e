// What mcp-offload takes from the MCP SDK (v2), listed, and checked to be there and to work as the proxy relies on.
// The SDK is pinned exactly in package.json; an upgrade runs this first, so a rename or a changed behavior fails here
// by name instead of somewhere deep in a relayed call. Only public exports: the proxy reads no private member of the
// SDK and patches none of its instances (src/relay/ has its own JSON-RPC; the SDK gives types, constants, helpers,
// OAuth, the built-in browser backend's Server and the login command's client).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import * as client from '@modelcontextprotocol/client';
import * as server from '@modelcontextprotocol/server';
import { LEGACY_PROTOCOL_VERSIONS } from '../../src/protocol/versions.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** Every runtime (non-type) name src/ imports from the SDK, by package, and where. */
const USED: Record<'client' | 'server', Record<string, string>> = {
  server: {
    classifyInboundRequest: 'http/mcp-endpoints.ts: which era a POST to /mcp is, and the ladder refusals',
    UriTemplate: 'protocol/uri-templates.ts: resource template matching (loaded when a server lists a template)',
    SUPPORTED_PROTOCOL_VERSIONS: 'protocol/versions.ts: the 2025-era versions served (written out, held equal here)',
    Server: 'upstreams/abp/server.ts: the built-in browser backend is an SDK server',
    InMemoryTransport: 'upstreams/connect.ts: the browser backend in this process',
    OAuthError: 'http/oauth/: token verification errors',
    OAuthErrorCode: 'http/oauth/',
    verifyBearerToken: 'http/oauth/oauth-gate.ts',
    getOAuthProtectedResourceMetadataUrl: 'http/oauth/oauth-gate.ts',
  },
  client: {
    auth: 'transports/http-auth.ts: the OAuth flow on a 401 or 403',
    computeScopeUnion: 'transports/http-auth.ts: scope step-up',
    createFetchWithInit: 'transports/http-auth.ts',
    extractWWWAuthenticateParams: 'transports/http-auth.ts',
    InsufficientScopeError: 'transports/http-auth.ts, upstreams/oauth/login-required.ts',
    OAuthClientFlowError:
      'upstreams/oauth/: an authorization the SDK gave up on (an issuer mismatch, ...) needs a login',
    UnauthorizedError: 'upstreams/oauth/login-required.ts, transports/http-auth.ts, cli/login.ts',
    SdkError: 'transports/http-wire.ts, upstreams/oauth/upstream-login.ts',
    SdkErrorCode: 'transports/, upstreams/oauth/',
    SdkHttpError: 'transports/',
    PROTOCOL_VERSION_META_KEY: 'transports/http-headers.ts',
    discoverAuthorizationServerMetadata: 'http/oauth/issuer-keys.ts',
    Client: 'cli/login.ts: `mcp-offload login` runs the SDK client’s own OAuth flow',
    StreamableHTTPClientTransport: 'cli/login.ts',
    SSEClientTransport: 'cli/login.ts',
  },
};

describe('the SDK is pinned and gives what the proxy uses', () => {
  test('every @modelcontextprotocol dependency is pinned to one version', () => {
    const sdk = Object.entries(pkg.dependencies).filter(([name]) => name.startsWith('@modelcontextprotocol/'));
    expect(sdk.length).toBeGreaterThan(0);
    for (const [name, range] of sdk)
      expect({ name, range }).toEqual({ name, range: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
  });

  test.each(Object.keys(USED.server))('@modelcontextprotocol/server exports %s', (name) => {
    expect((server as Record<string, unknown>)[name]).toBeDefined();
  });

  test.each(Object.keys(USED.client))('@modelcontextprotocol/client exports %s', (name) => {
    expect((client as Record<string, unknown>)[name]).toBeDefined();
  });
});

describe('the SDK behaves as the proxy relies on', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  test('classifyInboundRequest: an initialize is legacy, an enveloped request modern, a header mismatch refused', () => {
    const legacy = server.classifyInboundRequest({
      httpMethod: 'POST',
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
    });
    expect(legacy.kind).toBe('legacy');
    const modern = server.classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: '2026-07-28',
      mcpMethodHeader: 'tools/list',
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope } },
    });
    expect(modern.kind).toBe('modern');
    const refused = server.classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: '2026-07-28',
      mcpMethodHeader: 'tools/call',
      body: { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope } },
    });
    expect(refused).toMatchObject({ kind: 'reject', httpStatus: 400, code: -32020 });
  });

  test('SUPPORTED_PROTOCOL_VERSIONS lists the 2025 era, newest first, as protocol/versions.ts writes it out', () => {
    expect(server.SUPPORTED_PROTOCOL_VERSIONS[0]).toBe('2025-11-25');
    expect(server.SUPPORTED_PROTOCOL_VERSIONS).toContain('2024-11-05');
    expect(LEGACY_PROTOCOL_VERSIONS).toEqual(server.SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < '2026-07-28'));
  });

  test('UriTemplate matches a URI against a template', () => {
    expect(new server.UriTemplate('file:///{path}').match('file:///notes')).toEqual({ path: 'notes' });
    expect(new server.UriTemplate('file:///{path}').match('http://x')).toBeNull();
  });

  test('InMemoryTransport links a pair: what one side sends, the other receives', async () => {
    const [a, b] = server.InMemoryTransport.createLinkedPair();
    const got: unknown[] = [];
    b.onmessage = (message) => void got.push(message);
    await a.start();
    await b.start();
    await a.send({ jsonrpc: '2.0', method: 'ping' });
    expect(got).toEqual([{ jsonrpc: '2.0', method: 'ping' }]);
  });

  test('extractWWWAuthenticateParams reads a Bearer challenge', () => {
    const response = new Response(null, {
      status: 401,
      headers: {
        'WWW-Authenticate': 'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"',
      },
    });
    expect(client.extractWWWAuthenticateParams(response)).toMatchObject({
      resourceMetadataUrl: new URL('https://x/.well-known/oauth-protected-resource'),
      scope: 'a b',
    });
  });

  test('computeScopeUnion joins two scope strings', () => {
    const union = client.computeScopeUnion('a b', 'b c');
    expect(new Set(String(union).split(' '))).toEqual(new Set(['a', 'b', 'c']));
  });

  test('the SDK errors the transports raise carry their codes', () => {
    const error = new client.SdkHttpError(client.SdkErrorCode.ClientHttpNotImplemented, 'x', { status: 401 });
    expect(error).toBeInstanceOf(client.SdkError);
    expect(error.code).toBe(client.SdkErrorCode.ClientHttpNotImplemented);
    expect(new client.UnauthorizedError('no')).toBeInstanceOf(Error);
  });

  test("the OAuth flow's refusals are OAuthClientFlowErrors: an issuer mismatch, and a step-up's missing scope", () => {
    const mismatch = new client.IssuerMismatchError('metadata', 'https://as.example/', 'https://as.example/oauth');
    expect(mismatch).toBeInstanceOf(client.OAuthClientFlowError);
    expect(new client.InsufficientScopeError({ requiredScope: 'write' })).toBeInstanceOf(client.OAuthClientFlowError);
    expect(new client.UnauthorizedError('no')).not.toBeInstanceOf(client.OAuthClientFlowError);
  });
});
