import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/types.js';
import type { Gateway } from '../gateway/gateway.js';
import type { Logger } from '../logger.js';
import type { EventStore } from '../shared/event-store.js';
import type { LinkSigner } from './link-signer.js';
import type { RequestAuth } from './request-auth.js';
import type { SharedState } from '../shared/shared-state.js';

/** What the HTTP endpoints share. */
export interface HttpContext {
  gateway: Gateway;
  config: Config;
  log: Logger;
  auth: RequestAuth;
  signer: LinkSigner;
  maxBodyBytes: number;
  /** Resumable Streamable HTTP: the store every session gets a view of, and the SSE retry to announce. */
  resumption?: { store: EventStore; retryMs: number };
  /** With redis: what this replica shares with the others. */
  shared?: SharedState;
  /** True once shutdown began: no new sessions or requests. */
  draining(): boolean;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
    .end(JSON.stringify(body));
}

export function rpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The external base URL links are built on: artifacts.publicUrl, else what the client connected to. */
export function baseUrl(config: Config, req: IncomingMessage): string {
  return config.artifacts.publicUrl ?? `http://${req.headers.host ?? 'localhost'}`;
}
