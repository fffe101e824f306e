import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { McpHttpHandler, Notification } from '@modelcontextprotocol/server';
import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import type { SessionIdentity } from '../gateway/session.js';
import type { HttpContext } from './context.js';
import { IdleSessions } from './idle-sessions.js';

/** The stateless modern endpoint of one token: its listen streams hear what concerns that token. */
interface ModernEndpoint {
  handler: McpHttpHandler;
  serve: NodeMcpRequestHandler;
}

/**
 * The 2026-07-28 side of /mcp: one stateless endpoint per principal (a token's name or an OAuth subject), whose
 * listen streams hear of the changes that concern it. One unused for http.sessionIdleMs with nothing open (no listen
 * stream, no call) is let go: with OAuth every subject gets one; its next request makes it again.
 */
export class ModernEndpoints {
  private readonly endpoints = new Map<string, ModernEndpoint>();
  private readonly idle: IdleSessions;

  constructor(
    private readonly ctx: HttpContext,
    /** Who a principal's requests act for, given the web Request the SDK built for one. */
    private readonly identity: (token: string, request: Request | undefined) => SessionIdentity,
  ) {
    this.idle = new IdleSessions(ctx.config.httpOptions.sessionIdleMs, (token, idleMs) => this.letGo(token, idleMs));
    ctx.gateway.onSharedChange((notification) => {
      for (const { handler } of this.endpoints.values()) publish(handler, notification);
    });
  }

  /** Serves a modern POST (already checked by mcp-endpoints.ts) for the principal `token`. */
  serve(token: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    res.once('close', this.idle.begin(token));
    return this.endpointOf(token).serve(req, res, body);
  }

  async closeAll(): Promise<void> {
    this.idle.stop();
    await Promise.all([...this.endpoints.values()].map(({ handler }) => handler.close().catch(() => undefined)));
    this.endpoints.clear();
  }

  /**
   * The SDK's stateless entry for a token's modern requests (it answers server/discover, checks the envelope and the
   * Mcp-Method, Mcp-Name and MCP-Protocol-Version headers, and serves subscriptions/listen). Every request gets a
   * session of its own over the shared upstream connections; its artifacts belong to the token.
   */
  private endpointOf(token: string): ModernEndpoint {
    const found = this.endpoints.get(token);
    if (found) return found;
    const { gateway, log, maxBodyBytes } = this.ctx;
    const onerror = (error: Error) => log.debug({ err: error.message, token }, 'modern http request');
    const handler: McpHttpHandler = createMcpHandler(
      ({ requestInfo }) =>
        gateway.createSession(this.identity(token, requestInfo), {
          era: 'modern',
          transient: true,
          changes: (notification) => publish(handler, notification),
        }).server,
      { legacy: 'reject', onerror, maxRequestBodySize: maxBodyBytes },
    );
    const endpoint = { handler, serve: toNodeHandler(handler, { onerror, maxRequestBodySize: maxBodyBytes }) };
    this.endpoints.set(token, endpoint);
    return endpoint;
  }

  private letGo(token: string, idleMs: number): void {
    const endpoint = this.endpoints.get(token);
    if (!endpoint) return;
    this.endpoints.delete(token);
    this.ctx.log.debug({ token, idleMs }, 'modern endpoint let go: unused for http.sessionIdleMs');
    endpoint.handler.close().catch(() => undefined);
  }
}

/** A change in what the token's client sees, onto the listen streams that asked for it. */
function publish(handler: McpHttpHandler, notification: Notification): void {
  switch (notification.method) {
    case 'notifications/tools/list_changed':
      return handler.notify.toolsChanged();
    case 'notifications/prompts/list_changed':
      return handler.notify.promptsChanged();
    case 'notifications/resources/list_changed':
      return handler.notify.resourcesChanged();
    case 'notifications/resources/updated':
      return handler.notify.resourceUpdated(String((notification.params as { uri?: unknown } | undefined)?.uri));
  }
}
