import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import {
  TOKENS,
  bearer,
  connectHttp,
  connectSse,
  downloadUrlOf,
  linksOf,
  startSidecar,
  textsOf,
  type HttpClient,
  type Sidecar,
} from '../helpers/sidecar.js';

const [ALICE, BOB] = TOKENS as [(typeof TOKENS)[0], (typeof TOKENS)[0]];
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('sidecar: who may use the gateway and its artifacts', () => {
  let sidecar: Sidecar;
  let alice: HttpClient;
  let alice2: HttpClient;
  let bob: HttpClient;
  let uri: string;
  let id: string;

  beforeAll(async () => {
    // What this suite checks is per-session ownership: the scope that keeps it (the default is the principal's).
    sidecar = await startSidecar((config) => (config.auth.artifactScope = 'session'));
    [alice, alice2, bob] = await Promise.all([
      connectHttp(sidecar.base, ALICE.token),
      connectHttp(sidecar.base, ALICE.token),
      connectHttp(sidecar.base, BOB.token),
    ]);
    const result = await alice.client.callTool({ name: 'image', arguments: { tag: 'alice-secret' } });
    uri = linksOf(result)[0]!;
    id = uri.slice('artifact://'.length);
  });
  afterAll(async () => {
    await Promise.all([alice, alice2, bob].map((c) => c?.close()));
    await sidecar?.close();
  });

  test('/mcp without a token, or with a wrong one, is 401 with WWW-Authenticate', async () => {
    for (const headers of [
      {},
      bearer('wrong-token-0123456789abcdef'),
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      bearer(`${ALICE.token}x`),
    ]) {
      const response = await fetch(`${sidecar.base}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...headers },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp-offload"');
    }
    expect(sidecar.gateway.sessionCount).toBe(3);
  });

  test('the legacy SSE endpoints want the token too', async () => {
    expect((await fetch(`${sidecar.base}/sse`)).status).toBe(401);
    const posted = await fetch(`${sidecar.base}/messages?sessionId=x`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: '{}',
    });
    expect(posted.status).toBe(401);
  });

  test('another token cannot use a session: it is not found', async () => {
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const response = await fetch(`${sidecar.base}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        ...bearer(BOB.token),
        'mcp-session-id': alice.sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(list),
    });
    expect(response.status).toBe(404);
    const stream = await fetch(`${sidecar.base}/mcp`, {
      headers: { ...bearer(BOB.token), accept: 'text/event-stream', 'mcp-session-id': alice.sessionId },
    });
    expect(stream.status).toBe(404);
  });

  test('the owner reads its artifact; other sessions, of either token, get "not found"', async () => {
    const own = await alice.client.readResource({ uri });
    expect(Buffer.from((own.contents[0] as { blob: string }).blob, 'base64').includes('alice-secret')).toBe(true);
    for (const other of [alice2, bob]) {
      await expect(other.client.readResource({ uri })).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
        message: expect.stringContaining('not found'),
      });
      const read = await other.client.callTool({ name: 'artifact_read', arguments: { uri, offset: 0, length: 10 } });
      expect(read.isError).toBe(true);
      expect(textsOf(read)).not.toMatch(/alice-secret|forbidden/i);
      const listed = await other.client.listResources();
      expect(listed.resources.map((r) => r.uri)).not.toContain(uri);
      expect(textsOf(await other.client.callTool({ name: 'artifact_list', arguments: {} }))).not.toContain(uri);
    }
    // A made-up id answers exactly like someone else's.
    await expect(bob.client.readResource({ uri: 'artifact://art/image_000000000000.png' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  test('GET /artifacts/<id> with a token: owner session only; 401 without; 404 (never 403) for others', async () => {
    const path = `${sidecar.base}/artifacts/${id}`;
    expect((await fetch(path)).status).toBe(401);
    expect((await fetch(path, { headers: bearer('wrong-token-0123456789abcdef') })).status).toBe(401);
    const own = await fetch(path, { headers: { ...bearer(ALICE.token), 'mcp-session-id': alice.sessionId } });
    expect(own.status).toBe(200);
    expect(Buffer.from(await own.arrayBuffer()).includes('alice-secret')).toBe(true);
    const refusals = [
      { ...bearer(ALICE.token), 'mcp-session-id': alice2.sessionId },
      { ...bearer(BOB.token), 'mcp-session-id': bob.sessionId },
      // Bob naming Alice's session gets nothing either: a session belongs to its token.
      { ...bearer(BOB.token), 'mcp-session-id': alice.sessionId },
      // In the session scope a token alone names no session.
      bearer(ALICE.token),
    ];
    for (const headers of refusals) {
      const response = await fetch(path, { headers });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('alice-secret');
    }
    const missing = await fetch(`${sidecar.base}/artifacts/art/image_000000000000.png`, {
      headers: { ...bearer(BOB.token), 'mcp-session-id': bob.sessionId },
    });
    expect(missing.status).toBe(404);
  });

  test('a legacy SSE client works, and its artifacts are its own', async () => {
    const sse = await connectSse(sidecar.base, BOB.token);
    try {
      const tools = await sse.client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['image', 'echo', 'artifact_list']));
      expect(textsOf(await sse.client.callTool({ name: 'echo', arguments: { message: 'over sse' } }))).toBe('over sse');
      const result = await sse.client.callTool({ name: 'image', arguments: { tag: 'sse-tag' } });
      const [sseUri] = linksOf(result);
      const read = await sse.client.readResource({ uri: sseUri! });
      expect(Buffer.from((read.contents[0] as { blob: string }).blob, 'base64').includes('sse-tag')).toBe(true);
      await expect(sse.client.readResource({ uri })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
      await expect(bob.client.readResource({ uri: sseUri! })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
      // Its summary's signed link opens without any header.
      expect((await fetch(downloadUrlOf(result))).status).toBe(200);
      // Alice cannot post into Bob's SSE session.
      const hijack = await fetch(`${sidecar.base}/messages?sessionId=${sse.sessionId}`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...bearer(ALICE.token) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(sse.sessionId).not.toBe('');
      expect(hijack.status).toBe(404);
    } finally {
      await sse.close();
    }
  });

  test('Host and Origin from elsewhere are refused (DNS rebinding); loopback names are fine', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${sidecar.base}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...bearer(ALICE.token), ...headers },
        body: JSON.stringify(initialize),
      });
    // fetch sets Host itself; node:http lets us set it.
    const { request } = await import('node:http');
    const status = (host: string, origin?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${sidecar.base}/artifacts`,
          {
            headers: { host, ...(origin ? { origin } : {}), ...bearer(ALICE.token), 'mcp-session-id': alice.sessionId },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject).end();
      });
    expect(await status('evil.example.com')).toBe(403);
    expect(await status(`evil.example.com:${sidecar.http.port}`)).toBe(403);
    expect(await status(`localhost:${sidecar.http.port}`)).toBe(200);
    expect(await status(`127.0.0.1:${sidecar.http.port}`, 'http://evil.example.com')).toBe(403);
    expect(await status(`127.0.0.1:${sidecar.http.port}`, `http://localhost:${sidecar.http.port}`)).toBe(200);
    expect((await post({ origin: 'https://attacker.example' })).status).toBe(403);
    expect((await post({ origin: 'null' })).status).toBe(403);
    // Probes and the metrics scrape are exempt: orchestrators address containers by IP. Metrics still want the token.
    const byIp = (path: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) =>
        request(`${sidecar.base}${path}`, { headers: { host: '10.1.2.3:8080', ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        }).end(),
      );
    expect(await byIp('/healthz')).toBe(200);
    expect(await byIp('/readyz')).toBe(200);
    expect(await byIp('/metrics', bearer(ALICE.token))).toBe(200);
    expect(await byIp('/metrics')).toBe(401);
  });

  test('oversized bodies are refused with 413 on /mcp and /messages', async () => {
    const small = await startSidecar((config) => (config.httpOptions.maxBodyBytes = 2048));
    try {
      const big = JSON.stringify({ ...initialize, params: { ...initialize.params, padding: 'x'.repeat(10_000) } });
      const response = await fetch(`${small.base}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...bearer(ALICE.token) },
        body: big,
      });
      expect(response.status).toBe(413);
      const sse = await connectSse(small.base, ALICE.token);
      try {
        const posted = await fetch(`${small.base}/messages?sessionId=${sse.sessionId}`, {
          method: 'POST',
          headers: { ...MCP_HEADERS, ...bearer(ALICE.token) },
          body: big,
        });
        expect(posted.status).toBe(413);
        expect(textsOf(await sse.client.callTool({ name: 'echo', arguments: { message: 'still fine' } }))).toBe(
          'still fine',
        );
      } finally {
        await sse.close();
      }
    } finally {
      await small.close();
    }
  });

  test('/healthz and /readyz need no token; /readyz is 200 with every upstream up', async () => {
    expect((await fetch(`${sidecar.base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${sidecar.base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', upstreams: ['art'] });
  });

  test('/metrics wants the token unless auth.publicMetrics, and counts artifacts collected over the quota', async () => {
    expect((await fetch(`${sidecar.base}/metrics`)).status).toBe(401);
    const small = await startSidecar((config) => {
      config.artifacts.quotaBytes = 150;
      config.auth.publicMetrics = true;
    });
    const client = await connectHttp(small.base, ALICE.token);
    try {
      for (const tag of ['one', 'two', 'three']) await client.client.callTool({ name: 'image', arguments: { tag } });
      const metrics = await (await fetch(`${small.base}/metrics`)).text();
      expect(Number(/^mcp_offload_artifacts_collected_total (\d+)$/m.exec(metrics)?.[1])).toBe(2);
      expect(
        Number(/^mcp_offload_artifacts_stored_total\{server="art",tool="image"\} (\d+)$/m.exec(metrics)?.[1]),
      ).toBe(3);
      expect(Number(/^mcp_offload_artifacts (\d+)$/m.exec(metrics)?.[1])).toBe(1);
    } finally {
      await client.close();
      await small.close();
    }
  });

  // The default scope and its older name: an owner per principal, so a user's next session reads what the last got.
  test.each([
    ['the default scope', undefined],
    ['artifactScope: token', 'token'],
  ] as const)(
    'with %s, the sessions of one token share artifacts, and the token alone may download',
    async (_, scope) => {
      const shared = await startSidecar((config) => {
        if (scope) config.auth.artifactScope = scope;
      });
      const [a1, a2, b] = await Promise.all([
        connectHttp(shared.base, ALICE.token),
        connectHttp(shared.base, ALICE.token),
        connectHttp(shared.base, BOB.token),
      ]);
      try {
        const [sharedUri] = linksOf(await a1.client.callTool({ name: 'image', arguments: { tag: 'team' } }));
        expect((await a2.client.listResources()).resources.map((r) => r.uri)).toContain(sharedUri);
        const read = await a2.client.readResource({ uri: sharedUri! });
        expect(Buffer.from((read.contents[0] as { blob: string }).blob, 'base64').includes('team')).toBe(true);
        await expect(b.client.readResource({ uri: sharedUri! })).rejects.toMatchObject({
          code: ErrorCode.InvalidParams,
        });
        expect((await b.client.listResources()).resources.map((r) => r.uri)).not.toContain(sharedUri);
        const path = `${shared.base}/artifacts/${sharedUri!.slice('artifact://'.length)}`;
        expect((await fetch(path, { headers: bearer(ALICE.token) })).status).toBe(200);
        expect((await fetch(path, { headers: bearer(BOB.token) })).status).toBe(404);
      } finally {
        await Promise.all([a1, a2, b].map((c) => c.close()));
        await shared.close();
      }
    },
  );

  test('without authentication there is no principal: each session owns its own, whatever the scope', async () => {
    const open = await startSidecar((config) => {
      config.auth.tokens = [];
      config.auth.allowUnauthenticated = true;
    });
    const [one, two] = await Promise.all([connectHttp(open.base, ''), connectHttp(open.base, '')]);
    try {
      const [own] = linksOf(await one.client.callTool({ name: 'image', arguments: { tag: 'mine' } }));
      expect((await one.client.listResources()).resources.map((r) => r.uri)).toContain(own);
      await expect(two.client.readResource({ uri: own! })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
      expect((await two.client.listResources()).resources.map((r) => r.uri)).not.toContain(own);
    } finally {
      await Promise.all([one, two].map((c) => c.close()));
      await open.close();
    }
  });
});
