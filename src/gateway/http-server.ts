import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import type { Gateway } from './gateway.js';
import { readBody, BodyTooLargeError } from './read-body.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** Largest request body accepted; large tool arguments (100 MB) must fit. */
  maxBodyBytes?: number;
}

export interface HttpHandle {
  url: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;
export const KEEP_ALIVE_MS = 65_000;

/** Serves the gateway over Streamable HTTP at /mcp (stateful sessions) with a liveness probe at /healthz. */
export async function serveHttp(gateway: Gateway, options: HttpOptions, log: Logger): Promise<HttpHandle> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const handleMcp = async (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = header(req, 'mcp-session-id');
    if (req.method !== 'POST') {
      const transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport) return rpcError(res, sessionId ? 404 : 400, sessionId ? 'Session not found' : 'Missing mcp-session-id header');
      return transport.handleRequest(req, res);
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req, maxBody)).toString('utf8'));
    } catch (error) {
      if (error instanceof BodyTooLargeError) return rpcError(res, 413, error.message);
      return rpcError(res, 400, 'Parse error: the request body is not valid JSON', -32700);
    }
    if (sessionId) {
      const transport = transports.get(sessionId);
      if (!transport) return rpcError(res, 404, 'Session not found');
      return transport.handleRequest(req, res, body);
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return rpcError(res, 400, 'Bad Request: no mcp-session-id header and not an initialize request');
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
        log.debug({ session: id }, 'http session opened');
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    const session = gateway.createSession();
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
    // The SDK refused the initialize (e.g. a wrong Accept header): no session was made, so drop ours.
    if (!transport.sessionId) await session.close();
  };

  const server: NodeHttpServer = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (path === '/mcp') {
      handleMcp(req, res).catch((error: unknown) => {
        log.error({ err: String(error) }, 'http request failed');
        if (!res.headersSent) rpcError(res, 500, 'Internal server error', -32603);
        else res.end();
      });
      return;
    }
    json(res, 404, { error: 'not found' });
  });
  server.requestTimeout = 0;
  // Node's 5 s default closes an idle socket while a client that has just read a large result is still
  // building its next request; the POST then dies with EPIPE, and POSTs are not retried. Sixty-five
  // seconds also outlasts the 60 s idle timeout of common load balancers in front of a sidecar.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}/mcp`;
  log.info({ url }, 'serving Streamable HTTP');
  return {
    url,
    port,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function rpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  json(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
