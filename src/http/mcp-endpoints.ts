import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Who } from '../gateway/events.js';
import type { DownstreamSession, SessionIdentity } from '../gateway/session.js';
import { BodyTooLargeError, readBody } from '../gateway/read-body.js';
import { SseServerTransport } from './sse-server-transport.js';
import { presignedArtifactUrl, signedArtifactUrl, signedGalleryUrl } from './artifact-paths.js';
import { baseUrl, header, rpcError, sendJson, type HttpContext } from './context.js';
import { sessionEventStore } from './session-event-store.js';
import { IdleSessions } from './idle-sessions.js';
import { listenedUris } from '../gateway/resource-watch.js';
import { paramHeaderRejection } from './param-header-check.js';
import { replayHandshake } from './session-adoption.js';
import { servedLean } from './lean-post.js';
import { ModernEndpoints } from './modern-endpoints.js';
import { headerReader, isLegacy, isListen, unknownRequestId } from './post-kind.js';
import { SessionRouting } from './session-routing.js';
import { FORWARDED_HEADER, forwardRequest } from './session-forwarder.js';
import type { SessionRecord } from '../shared/session-directory.js';
import { parseExact } from '../codec/exact-numbers.js';
import { writeNumbersExactly } from './exact-response.js';

/** The legacy SSE transport's POST endpoint (the GET stream is at /sse). */
export const SSE_MESSAGES_PATH = '/messages';

interface HttpSession {
  /** The name of the token that opened it: only that token may use it. */
  token: string;
  session: DownstreamSession;
  transport: NodeStreamableHTTPServerTransport | SseServerTransport;
}

/**
 * MCP over HTTP: Streamable HTTP at /mcp and the legacy SSE pair (GET /sse, POST /messages).
 * Every session is bound to the token that opened it; another token's requests for it are told
 * "Session not found", as if it did not exist.
 */
export class McpEndpoints {
  private readonly sessions = new Map<string, HttpSession>();
  /** POSTs whose responses are still being written: a Streamable HTTP result goes out on its POST. */
  private readonly openPosts = new Set<ServerResponse>();

  private readonly idle: IdleSessions;
  /** Modern (2026-07-28) requests, by token: served by the SDK's stateless entry, one Server per request. */
  private readonly modern: ModernEndpoints;
  /** With redis: requests for sessions other replicas hold. */
  private readonly routing?: SessionRouting;
  /** True while the replica shuts down: its sessions are let go for other replicas, not ended. */
  private closingAll = false;

  constructor(private readonly ctx: HttpContext) {
    this.idle = new IdleSessions(ctx.config.httpOptions.sessionIdleMs, (id, idleMs) => this.expire(id, idleMs));
    this.modern = new ModernEndpoints(ctx, (token, origin) => this.modernIdentity(token, origin));
    if (ctx.shared) {
      this.routing = new SessionRouting(
        ctx.shared.directory,
        (id, record, req) => this.recreate(id, record, req),
        ctx.shared.forwarding,
        ctx.log,
      );
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * The artifact owner a request with this token acts for (for downloads and the gallery): the session
   * its mcp-session-id names, if that session is the token's; else, with artifactScope token, the token.
   */
  async ownerFor(req: IncomingMessage, token: string): Promise<{ owner?: string; who: Who }> {
    const id = header(req, 'mcp-session-id');
    if (id !== undefined) {
      const found = this.find(id, token);
      if (found) return { owner: found.session.owner, who: found.session.who };
      // A session another replica holds owns the same artifacts here.
      const record = await this.ctx.shared?.directory.lookup(id).catch(() => undefined);
      if (record?.token === token) return { owner: record.owner, who: { token, session: id } };
      return { who: { token, session: '' } };
    }
    // Without a session the token is the owner: a modern client's artifacts belong to its token (and with
    // artifactScope token, every session's do).
    return { owner: tokenOwner(token), who: { token, session: '' } };
  }

  async handleMcp(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const sessionId = header(req, 'mcp-session-id');
    if (req.method !== 'POST') {
      if (sessionId !== undefined && !(await this.heldHere(req, res, token, sessionId))) return;
      const found = sessionId ? this.find(sessionId, token) : undefined;
      if (!found)
        return rpcError(res, sessionId ? 404 : 400, sessionId ? 'Session not found' : 'Missing mcp-session-id header');
      this.busy(sessionId!, res);
      writeNumbersExactly(res);
      return (found.transport as NodeStreamableHTTPServerTransport).handleRequest(req, res);
    }
    const raw = await this.readRaw(req, res);
    const body = raw === undefined ? undefined : parseJson(raw, res);
    if (body === undefined) return;
    if (this.ctx.draining() && hasRequest(body)) return rpcError(res, 503, 'mcp-offload is shutting down', -32000);
    // A listen stream stays open as long as its client wants: shutdown ends it rather than wait for it.
    if (!isListen(body)) {
      this.openPosts.add(res);
      res.once('close', () => this.openPosts.delete(res));
    }
    if (!isLegacy(req, body)) {
      // Method not found is HTTP 404 on the 2026 wire; the SDK's entry sees the gateway's catch-all handler, so the
      // answer is given here, for a method the gateway has no handler for (not passed on even to a lone upstream: a
      // 2026-07-28 server answers an unknown method alike, and a client cannot tell the proxy from it).
      const unknown = unknownRequestId(body, this.ctx.gateway);
      if (unknown !== undefined) {
        return sendJson(res, 404, {
          jsonrpc: '2.0',
          id: unknown,
          error: { code: -32601, message: 'Method not found' },
        });
      }
      // The SDK's entry checks Mcp-Param-* headers only for tools an McpServer registered; the proxy's are the
      // catalog's (modern requests are served by the shared connections, so the shared catalog is the one listed).
      const mismatch = paramHeaderRejection(
        body,
        headerReader(req),
        (name) => this.ctx.gateway.catalog.tool(name)?.item,
      );
      if (mismatch !== undefined) return sendJson(res, mismatch.status, mismatch.body);
      if (await this.retryForwarded(req, res, body, raw!)) return;
      const uris = listenedUris(body);
      if (uris.length > 0) res.once('close', this.ctx.gateway.resourceWatch.watch(uris));
      return this.modern.serve(token, req, res, body);
    }
    if (sessionId) {
      if (!(await this.heldHere(req, res, token, sessionId, raw))) return;
      const found = this.find(sessionId, token);
      if (!found || !(found.transport instanceof NodeStreamableHTTPServerTransport))
        return rpcError(res, 404, 'Session not found');
      this.busy(sessionId, res);
      if (servedLean(found.transport, found.session.lean, req, res, body)) return;
      writeNumbersExactly(res);
      return found.transport.handleRequest(req, res, body);
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return rpcError(res, 400, 'Bad Request: no mcp-session-id header and not an initialize request');
    }
    const session = this.ctx.gateway.createSession(this.identity(req, token));
    const events = this.ctx.resumption && sessionEventStore(this.ctx.resumption.store);
    const init = (messages.find((m) => isInitializeRequest(m)) as { params: SessionRecord['init'] }).params;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: async (id) => {
        this.sessions.set(id, { token, session, transport });
        this.busy(id, res);
        this.ctx.log.debug({ session: session.id, token }, 'http session opened');
        // Before the client has its session id, so its next request finds the session from any replica.
        await this.ctx.shared?.directory
          .register(id, { token, owner: session.owner, events: events ? events.prefix : '', init })
          .catch((error: unknown) =>
            this.ctx.log.warn({ err: String(error) }, 'redis: session not shared; only this replica can serve it'),
          );
      },
      ...(events ? { eventStore: events.view, retryInterval: this.ctx.resumption!.retryMs } : {}),
    });
    transport.onclose = this.closedHandler(transport, events);
    await session.connect(transport);
    writeNumbersExactly(res);
    await transport.handleRequest(req, res, body);
    // The SDK refused the initialize (e.g. a wrong Accept header): no session was made, so drop ours.
    if (!transport.sessionId) await session.close();
  }

  /**
   * Whether this replica serves a legacy request for session `id`: it holds the session (or, alone, answers
   * 'Session not found' itself), or has just adopted it. False when the request was answered elsewhere: forwarded to
   * the replica that holds it, or refused (session-routing.ts).
   */
  private async heldHere(
    req: IncomingMessage,
    res: ServerResponse,
    token: string,
    id: string,
    body?: Buffer,
  ): Promise<boolean> {
    if (!this.routing) return true;
    if (this.sessions.has(id)) {
      this.ctx.shared?.directory.touch(id);
      return true;
    }
    // A replica shutting down takes nothing on: the client's retry reaches another one.
    if (this.ctx.draining()) {
      rpcError(res, 503, 'mcp-offload is shutting down');
      return false;
    }
    return (await this.routing.route(req, res, token, id, body)).kind === 'adopted';
  }

  /**
   * A 2026-07-28 client's retry (its requestState) of a call another replica holds for it (a legacy server's question
   * bridged into an input_required result) goes to that replica, the only one that can go on with the call. True when
   * forwarded; false to serve it here (not such a retry, or the holder is gone: the state is then refused here).
   */
  private async retryForwarded(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    raw: Buffer,
  ): Promise<boolean> {
    const { shared, gateway, log } = this.ctx;
    if (!shared || shared.forwarding.read(req.headers[FORWARDED_HEADER]) !== undefined) return false;
    const state = (body as { params?: { requestState?: unknown } } | null)?.params?.requestState;
    const holder = gateway.bridge.holderElsewhere(state);
    if (holder === undefined) return false;
    const url = await shared.directory.replicaUrl(holder).catch(() => undefined);
    if (url === undefined) return false;
    return (await forwardRequest(req, res, url, raw, shared.forwarding.make(holder), log)) === 'forwarded';
  }

  /** What happens when a session's transport closes: DELETE, idle expiry, or this replica shutting down. */
  private closedHandler(
    transport: NodeStreamableHTTPServerTransport,
    events: ReturnType<typeof sessionEventStore> | undefined | false,
  ): () => void {
    const warn = (what: string) => (error: unknown) => this.ctx.log.warn({ err: String(error) }, what);
    return () => {
      const id = transport.sessionId;
      if (id) {
        this.sessions.delete(id);
        this.idle.forget(id);
      }
      const { shared } = this.ctx;
      // Shutting down, a replica of several lets its sessions go, events included: another one adopts them.
      if (shared && this.closingAll) {
        if (id) shared.directory.release(id).catch(warn('redis: session not released'));
        return;
      }
      if (shared && id) shared.directory.remove(id).catch(warn('redis: session record not removed'));
      if (events) events.forget().catch(warn('event store: forget failed'));
    };
  }

  /** A session another replica held, served here from now on (session-routing.ts decided so). */
  private async recreate(id: string, record: SessionRecord, req: IncomingMessage): Promise<void> {
    const session = this.ctx.gateway.createSession(
      this.identityOf(record.owner, record.token, baseUrl(this.ctx.config, req)),
    );
    const store = this.ctx.resumption?.store;
    const events = store && record.events ? sessionEventStore(store, record.events) : undefined;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void this.sessions.set(id, { token: record.token, session, transport }),
      ...(events ? { eventStore: events.view, retryInterval: this.ctx.resumption!.retryMs } : {}),
    });
    transport.onclose = this.closedHandler(transport, events);
    await session.connect(transport);
    try {
      await replayHandshake(transport, id, record.init);
    } catch (error) {
      this.sessions.delete(id);
      await transport.close().catch(() => undefined);
      await session.close();
      throw error;
    }
    this.idle.begin(id)();
  }

  /** GET /sse: a legacy SSE session; its messages arrive at POST /messages?sessionId=… */
  async handleSse(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    if (req.method !== 'GET') return rpcError(res, 405, 'GET /sse opens an event stream');
    if (this.ctx.draining()) return rpcError(res, 503, 'mcp-offload is shutting down');
    const transport = new SseServerTransport(SSE_MESSAGES_PATH, res);
    const session = this.ctx.gateway.createSession(this.identity(req, token));
    const id = transport.sessionId;
    this.sessions.set(id, { token, session, transport });
    const { shared } = this.ctx;
    res.on('close', () => {
      this.sessions.delete(id);
      void session.close();
      shared?.directory
        .remove(id)
        .catch((error: unknown) => this.ctx.log.warn({ err: String(error) }, 'redis: session record not removed'));
    });
    // Before the client learns the id (the stream's first event), so its POSTs find this replica from any other.
    await shared?.directory
      .register(id, { token, owner: session.owner, events: '', init: null, kind: 'sse' })
      .catch((error: unknown) =>
        this.ctx.log.warn({ err: String(error) }, 'redis: session not shared; only this replica can serve it'),
      );
    await session.connect(transport);
    this.ctx.log.debug({ session: session.id, token }, 'sse session opened');
  }

  async handleMessages(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    if (req.method !== 'POST') return rpcError(res, 405, 'POST a JSON-RPC message');
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '';
    const raw = await this.readRaw(req, res);
    if (raw === undefined) return;
    // Another replica's SSE session: its stream is there, so its messages go there (it is never adopted).
    if (!(await this.heldHere(req, res, token, id, raw))) return;
    const found = this.find(id, token);
    if (!found || !(found.transport instanceof SseServerTransport)) return rpcError(res, 404, 'Session not found');
    const body = parseJson(raw, res);
    if (body === undefined) return;
    if (this.ctx.draining() && hasRequest(body)) return rpcError(res, 503, 'mcp-offload is shutting down');
    await found.transport.handlePostMessage(req, res, body);
  }

  /** Resolves when every POST has its response written, or at `deadline` (ms since the epoch). */
  async responsesWritten(deadline: number): Promise<void> {
    // A result the gateway just returned is sent a few promise turns later.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.openPosts.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** The session has a request or stream open until `res` closes. */
  private busy(sessionId: string, res: ServerResponse): void {
    res.once('close', this.idle.begin(sessionId));
  }

  /** Ends a session its client left without DELETE, and with it what was opened for it upstream. */
  private expire(sessionId: string, idleMs: number): void {
    const found = this.sessions.get(sessionId);
    if (!found) return;
    this.sessions.delete(sessionId);
    this.ctx.log.info(
      { session: found.session.id, token: found.token, idleMs },
      'http session ended: its client sent nothing for http.sessionIdleMs',
    );
    void found.transport
      .close()
      .catch(() => undefined)
      .then(() => found.session.close());
  }

  private modernIdentity(token: string, origin: string | undefined): SessionIdentity {
    const base = this.ctx.config.artifacts.publicUrl ?? origin ?? 'http://localhost';
    return this.identityOf(tokenOwner(token), token, base);
  }

  async closeAll(): Promise<void> {
    this.closingAll = true;
    this.idle.stop();
    await this.modern.closeAll();
    await Promise.all(
      [...this.sessions.values()].map(async ({ transport, session }) => {
        await transport.close().catch(() => undefined);
        await session.close();
      }),
    );
    this.sessions.clear();
  }

  private find(id: string, token: string): HttpSession | undefined {
    const found = this.sessions.get(id);
    return found && found.token === token ? found : undefined;
  }

  /** The body's bytes, or undefined after answering 413 (or when the client went away). */
  private async readRaw(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
    try {
      return await readBody(req, this.ctx.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) rpcError(res, 413, error.message);
      else rpcError(res, 400, 'Parse error: the request body is not valid JSON', -32700);
      return undefined;
    }
  }

  private identity(req: IncomingMessage, token: string): SessionIdentity {
    const owner = this.ctx.config.auth.artifactScope === 'token' ? tokenOwner(token) : `session:${randomUUID()}`;
    return this.identityOf(owner, token, baseUrl(this.ctx.config, req));
  }

  /** Who a client acts for, with download links signed for its owner at `base`. */
  private identityOf(owner: string, token: string, base: string): SessionIdentity {
    const { config, signer } = this.ctx;
    return {
      owner,
      token,
      links: {
        showPath: config.artifacts.links.showPath,
        urlFor: (record) =>
          config.artifacts.links.via === 'presigned'
            ? presignedArtifactUrl(this.ctx.gateway.offload.store, record, config.artifacts.links.ttlSeconds)
            : signedArtifactUrl(signer, base, record.id),
        galleryUrl: () => signedGalleryUrl(signer, base, owner),
      },
    };
  }
}

const tokenOwner = (token: string): string => `token:${token}`;

/** The body as JSON, or undefined after answering 400. */
function parseJson(raw: Buffer, res: ServerResponse): unknown {
  try {
    return parseExact(raw.toString('utf8'));
  } catch {
    rpcError(res, 400, 'Parse error: the request body is not valid JSON', -32700);
    return undefined;
  }
}

/** True when the body holds a JSON-RPC request (not only responses and notifications). */
function hasRequest(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => m !== null && typeof m === 'object' && 'method' in m && 'id' in m);
}
