// A 2025-11-25 Streamable HTTP server (SDK v1, one McpServer per session) on 127.0.0.1 that records its sessions:
// which were opened, which a DELETE ended. For tests of what a client's end does to the sessions opened upstream.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface SessionRecordingServer {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  /** Session ids in the order they were opened. */
  opened: string[];
  /** Session ids a DELETE ended, in order. */
  deleted: string[];
  /** Sessions opened and not deleted. */
  open(): string[];
  close(): Promise<void>;
}

export async function startSessionRecordingServer(): Promise<SessionRecordingServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const opened: string[] = [];
  const deleted: string[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? transports.get(id) : undefined;
    if (known) {
      if (req.method === 'DELETE') deleted.push(id as string);
      return known.handleRequest(req, res);
    }
    if (req.method !== 'POST' || id !== undefined) {
      res.writeHead(404).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        opened.push(sessionId);
        transports.set(sessionId, transport);
      },
    });
    const server = new McpServer({ name: 'recording', version: '1.0.0' });
    server.registerTool('whoami', { description: 'the upstream session id' }, (extra) => ({
      content: [{ type: 'text', text: String(extra.sessionId) }],
    }));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    opened,
    deleted,
    open: () => opened.filter((id) => !deleted.includes(id)),
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
