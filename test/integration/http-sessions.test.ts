import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpHandle } from '../../src/gateway/http-server.js';
import { silentLogger } from '../../src/logger.js';
import { FIXTURES, NODE } from '../helpers/fixtures.js';
import { NO_OFFLOAD, testConfig } from '../helpers/proxy.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('HTTP sessions', () => {
  let gateway: Gateway;
  let http: HttpHandle;
  beforeAll(async () => {
    gateway = new Gateway(
      testConfig([{ name: 'basic', command: NODE, args: [FIXTURES.basic] }], NO_OFFLOAD),
      silentLogger,
    );
    await gateway.start();
    http = await serveHttp(gateway, { host: '127.0.0.1', port: 0 }, silentLogger);
  });
  afterAll(async () => {
    await http.close();
    await gateway.stop();
  });

  test('an initialize the transport refuses leaves no session behind', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/plain' },
        body: JSON.stringify(initialize),
      });
      expect(response.status).toBe(406);
    }
    expect(gateway.sessionCount).toBe(0);
  });

  test('an accepted initialize makes one session, and DELETE ends it', async () => {
    const response = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    expect(response.status).toBe(200);
    await response.text();
    const id = response.headers.get('mcp-session-id');
    expect(id).toBeTruthy();
    expect(gateway.sessionCount).toBe(1);
    const closed = await fetch(http.url, { method: 'DELETE', headers: { 'mcp-session-id': id! } });
    expect(closed.status).toBe(200);
    expect(gateway.sessionCount).toBe(0);
  });

  test('a body over the limit is refused with 413', async () => {
    const small = await serveHttp(gateway, { host: '127.0.0.1', port: 0, maxBodyBytes: 1000 }, silentLogger);
    try {
      const response = await fetch(small.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ ...initialize, params: { ...initialize.params, padding: 'x'.repeat(5000) } }),
      });
      expect(response.status).toBe(413);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /exceeds the limit of 1000 bytes/,
      );
    } finally {
      await small.close();
    }
  });
});
