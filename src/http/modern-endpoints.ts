import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { McpHttpHandler, Notification } from '@modelcontextprotocol/server';
import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import type { DownstreamSession, SessionIdentity } from '../gateway/session.js';
import type { HttpContext } from './context.js';
import { IdleSessions } from './idle-sessions.js';
import { ModernLeanPosts } from './lean-modern-post.js';
import { writeNumbersExactly } from './exact-response.js';

/** The stateless modern endpoint of one token: its listen streams hear what concerns that token. */
interface ModernEndpoint {
  handler: McpHttpHandler;
  serve: NodeMcpRequestHandler;
  /** A session for one request of the token's, for a client at `origin` (its artifact links point there). */
  session(origin: string | undefined): DownstreamSession;
}

/**
 * The 2026-07-28 side of /mcp: one stateless endpoint per principal (a token's name or an OAuth subject), whose
 * listen streams hear of the changes that concern it. One unused for http.sessionIdleMs with nothing open (no listen
 * stream, no call) is let go: with OAuth every subject gets one; its next request makes it again.
 */
export class ModernEndpoints {
  private readonly endpoints = new Map<string, ModernEndpoint>();
  private readonly idle: IdleSessions;
  /** Plain first-round calls, served past the SDK's entry (lean-modern-post.ts). */
  private readonly lean: ModernLeanPosts;

  constructor(
    private readonly ctx: HttpContext,
    /** Who a principal's requests act for, given the origin its client reached the proxy at. */
    private readonly identity: (token: string, origin: string | undefined) => SessionIdentity,
  ) {
    this.lean = new ModernLeanPosts();
    this.idle = new IdleSessions(ctx.config.httpOptions.sessionIdleMs, (token, idleMs) => this.letGo(token, idleMs));
    ctx.gateway.onSharedChange((notification) => {
      for (const { handler } of this.endpoints.values()) publish(handler, notification);
    });
  }

  /** Serves a modern POST (already checked by mcp-endpoints.ts) for the principal `token`. */
  serve(token: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    res.once('close', this.idle.begin(token));
    const endpoint = this.endpointOf(token);
    const call = this.lean.callOf(req, body);
    const origin = call && originOf(req);
    if (!call || origin === null) {
      writeNumbersExactly(res);
      return endpoint.serve(req, res, body);
    }
    this.lean.serve(call, res, endpoint.session(origin));
    return Promise.resolve();
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
    const session = (origin: string | undefined) =>
      gateway.createSession(this.identity(token, origin), {
        era: 'modern',
        transient: true,
        changes: (notification) => publish(handler, notification),
      });
    const handler: McpHttpHandler = createMcpHandler(
      ({ requestInfo }) => session(requestInfo && new URL(requestInfo.url).origin).server,
      { legacy: 'reject', onerror, maxRequestBodySize: maxBodyBytes },
    );
    const serve = toNodeHandler(handler, { onerror, maxRequestBodySize: maxBodyBytes });
    const endpoint = { handler, serve, session };
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

/** The last Host header seen and its origin: a client sends the same one with every request. */
let lastOrigin: { host: string; origin: string | null } = { host: '', origin: null };

/**
 * The origin of the URL the SDK's Node adapter makes of a request (`http://` and its Host header), so a call served
 * past the adapter links its artifacts as one served through it; undefined with no Host, null when the SDK could not
 * make a URL of it either (the POST then goes to the SDK, which answers it).
 */
function originOf(req: IncomingMessage): string | undefined | null {
  const host = req.headers.host;
  if (host === undefined) return undefined;
  if (lastOrigin.host !== host) {
    let origin: string | null;
    try {
      origin = new URL(`http://${host}`).origin;
    } catch {
      origin = null;
    }
    lastOrigin = { host, origin };
  }
  return lastOrigin.origin;
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
