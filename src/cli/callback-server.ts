import type { Server } from 'node:http';
import { http } from '../wire/node-http.js';

/** The page the browser shows once it came back: the terminal has the outcome. */
const DONE_PAGE = `<!doctype html><meta charset="utf-8"><title>mcp-offload</title>
<p>mcp-offload received the answer of the authorization server. You can close this window and return to the terminal.</p>`;

export interface Callback {
  /** http://127.0.0.1:<port>/callback */
  redirectUrl: string;
  /** The query of the first request to /callback. */
  received: Promise<URLSearchParams>;
  close(): Promise<void>;
}

/**
 * Listens on the loopback address for the browser's redirect (RFC 8252 §7.3): 127.0.0.1 rather than "localhost",
 * which may resolve to another address or to ::1. Port 0 takes a free one.
 */
export async function listenForCallback(port: number): Promise<Callback> {
  let deliver!: (params: URLSearchParams) => void;
  const received = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const server: Server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(DONE_PAGE);
    deliver(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    redirectUrl: `http://127.0.0.1:${bound}/callback`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
