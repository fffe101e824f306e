import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InitializeRequest } from '@modelcontextprotocol/server';
import type { Who } from '../relay/events.js';
import { BodyTooLargeError, readBody } from './read-body.js';
import type { Session, SessionIdentity } from '../relay/session.js';
import { LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { SessionRecord } from '../shared/session-directory.js';
import { Frame } from '../wire/frame.js';
import type { FrameContext } from '../wire/wire.js';
import { presignedArtifactUrl, signedArtifactUrl, signedGalleryUrl } from './artifact-paths.js';
import { baseUrl, header, rpcError, sendJson, type HttpContext } from './context.js';
import { principalOwner, sessionOwner } from './artifact-owner.js';
import { IdleSessions } from './idle-sessions.js';
import { ModernPosts, originOf } from './modern-posts.js';
import { PostEras } from './post-era.js';
import { sessionEventStore, type SessionEventStore } from './session-event-store.js';
import { FORWARDED_HEADER, forwardRequest } from './session-forwarder.js';
import { SessionQuota } from './session-quota.js';
import { SessionRouting } from './session-routing.js';
import { SseSession } from './sse-session.js';
import { StreamableSession } from './streamable-session.js';

/** The legacy SSE transport's POST endpoint (the GET stream is at /sse). */
export const SSE_MESSAGES_PATH = '/messages';

interface HttpSession {
  /** The name of the token that opened it: only that token may use it. */
  token: string;
  session: Session;
  wire: StreamableSession | SseSession;
}

/**
 * MCP over HTTP: Streamable HTTP at /mcp (2025 sessions and 2026-07-28 stateless requests, told apart by the SDK's
 * own classification of each POST) and the legacy SSE pair (GET /sse, POST /messages). Every session is bound to
 * the token that opened it; another token's requests for it are told "Session not found", as if it did not exist.
 */
export class McpEndpoints {
  private readonly sessions = new Map<string, HttpSession>();
  /** POSTs whose responses are still being written. */
  private readonly openPosts = new Set<ServerResponse>();
  private readonly idle: IdleSessions;
  /** Sessions per principal, against http.maxSessionsPerPrincipal. */
  private readonly quota: SessionQuota;
  private readonly modern: ModernPosts;
  private readonly eras = new PostEras();
  /** With redis: requests for sessions other replicas hold. */
  private readonly routing?: SessionRouting;
  /** True while the replica shuts down: its sessions are let go for other replicas, not ended. */
  private closingAll = false;

  constructor(private readonly ctx: HttpContext) {
    this.idle = new IdleSessions(ctx.config.httpOptions.sessionIdleMs, (id, idleMs) => this.expire(id, idleMs));
    this.quota = new SessionQuota(ctx.config.httpOptions.maxSessionsPerPrincipal);
    this.modern = new ModernPosts(ctx, (token, origin) => this.modernIdentity(token, origin));
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
   * The artifact owner a request with this token acts for (for downloads and the gallery): the session its
   * mcp-session-id names, if that session is the token's; else the token's principal.
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
    // Without a session the token is the owner: a modern client's artifacts belong to its token.
    return { owner: principalOwner(token), who: { token, session: '' } };
  }

  async handleMcp(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const sessionId = header(req, 'mcp-session-id');
    if (req.method === 'GET' || req.method === 'DELETE') return this.sessionRequest(req, res, token, sessionId);
    if (req.method !== 'POST') return rpcError(res, 405, 'Method not allowed.');
    const raw = await this.readRaw(req, res);
    if (raw === undefined) return;
    const body = bodyOf(raw);
    if (!body) return rpcError(res, 400, 'Parse error: Invalid JSON', -32700);
    const { frames } = body;
    if (this.ctx.draining() && frames.some((f) => f.kind === 'request'))
      return rpcError(res, 503, 'mcp-offload is shutting down', -32000);
    if (!frames.some((f) => f.method === 'subscriptions/listen')) {
      // A listen stream stays open as long as its client wants: shutdown ends it rather than wait for it.
      this.openPosts.add(res);
      res.once('close', () => this.openPosts.delete(res));
    }
    const text = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const outcome = this.eras.of(frames, body.batch, {
      protocolVersion: text('mcp-protocol-version'),
      mcpMethod: text('mcp-method'),
      mcpName: text('mcp-name'),
    });
    if (outcome.kind === 'reject') {
      return sendJson(res, outcome.httpStatus, {
        jsonrpc: '2.0',
        id: frames.length === 1 && frames[0]!.kind === 'request' ? frames[0]!.id : null,
        error: {
          code: outcome.code,
          message: outcome.message,
          ...(outcome.data !== undefined ? { data: outcome.data } : {}),
        },
      });
    }
    const context: FrameContext = { headers: req.headers };
    if (outcome.kind === 'modern') {
      // Looked up first, without a turn of a promise: only a retry of a call another replica holds waits for one.
      const holder = this.holderElsewhere(req, frames[0]!);
      if (holder !== undefined && (await this.retryForwarded(req, res, holder, raw))) return;
      return this.modern.serve(token, req, res, frames[0]!);
    }
    return this.legacyPost(req, res, token, sessionId, frames, raw, context);
  }

  /** A 2025 POST: to its session, or an `initialize` that opens one. */
  private async legacyPost(
    req: IncomingMessage,
    res: ServerResponse,
    token: string,
    sessionId: string | undefined,
    frames: Frame[],
    raw: Buffer,
    context: FrameContext,
  ): Promise<void> {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      return rpcError(res, 406, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    if (!isJsonType(req.headers['content-type']))
      return rpcError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
    if (frames.some((f) => f.kind === 'invalid'))
      return rpcError(res, 400, 'Parse error: Invalid JSON-RPC message', -32700);
    const initialize = frames.find((f) => f.kind === 'request' && f.method === 'initialize');
    if (initialize) {
      if (sessionId !== undefined && this.sessions.has(sessionId))
        return rpcError(res, 400, 'Invalid Request: Server already initialized', -32600);
      if (frames.length > 1)
        return rpcError(res, 400, 'Invalid Request: Only one initialization request is allowed', -32600);
      return this.open(req, res, token, initialize, context);
    }
    if (sessionId === undefined) return rpcError(res, 400, 'Bad Request: Mcp-Session-Id header is required');
    const held = this.heldHere(req, res, token, sessionId, raw);
    if (held !== true && !(await held)) return;
    const found = this.find(sessionId, token);
    if (!found || !(found.wire instanceof StreamableSession)) return rpcError(res, 404, 'Session not found', -32001);
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && !LEGACY_PROTOCOL_VERSIONS.includes(version)) {
      return rpcError(
        res,
        400,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${LEGACY_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    this.busy(sessionId, res);
    found.wire.post(res, frames, context);
  }

  /** A 2025 session's GET (its stream) or DELETE (its end). */
  private async sessionRequest(
    req: IncomingMessage,
    res: ServerResponse,
    token: string,
    sessionId: string | undefined,
  ): Promise<void> {
    if (sessionId === undefined) return rpcError(res, 400, 'Bad Request: Mcp-Session-Id header is required');
    const held = this.heldHere(req, res, token, sessionId);
    if (held !== true && !(await held)) return;
    const found = this.find(sessionId, token);
    if (!found || !(found.wire instanceof StreamableSession)) return rpcError(res, 404, 'Session not found', -32001);
    this.busy(sessionId, res);
    if (req.method === 'GET') return found.wire.get(req, res);
    await found.wire.close();
    res.writeHead(200).end();
  }

  /** Opens a 2025 session for its `initialize`; the answer carries its id. */
  private async open(
    req: IncomingMessage,
    res: ServerResponse,
    token: string,
    initialize: Frame,
    context: FrameContext,
  ): Promise<void> {
    if (!this.quota.admit(token, res)) return;
    const id = randomUUID();
    const init = initialize.params as InitializeRequest['params'];
    const events = this.ctx.resumption && sessionEventStore(this.ctx.resumption.store);
    const session = this.ctx.gateway.createSession(this.identity(req, token), { era: 'legacy' });
    const wire = this.streamable(id, token, session, events || undefined);
    wire.protocolVersion = typeof init.protocolVersion === 'string' ? init.protocolVersion : undefined;
    // Before the client has its session id, so its next request finds the session from any replica.
    await this.ctx.shared?.directory
      .register(id, { token, owner: session.owner, events: events ? events.prefix : '', init })
      .catch((error: unknown) =>
        this.ctx.log.warn({ err: String(error) }, 'redis: session not shared; only this replica can serve it'),
      );
    this.ctx.log.debug({ session: session.id, token }, 'http session opened');
    this.busy(id, res);
    wire.post(res, [initialize], context);
  }

  /** A 2025 session's wire, known here by its id until it closes (DELETE, idle expiry, shutdown). */
  private streamable(id: string, token: string, session: Session, events?: SessionEventStore): StreamableSession {
    const wire = new StreamableSession(id, {
      ...(events ? { events: events.view, retryMs: this.ctx.resumption!.retryMs } : {}),
      streamAfterMs: this.ctx.config.httpOptions.streamAfterMs,
      log: this.ctx.log,
    });
    session.attach(wire);
    const relayed = wire.onclose;
    // Counted from here, adopted sessions included: another replica admitted them.
    const leave = this.quota.add(token);
    wire.onclose = () => {
      relayed?.();
      leave();
      this.closed(id, events);
    };
    this.sessions.set(id, { token, session, wire });
    return wire;
  }

  /** What follows the end of a session: it is forgotten here, and in the directory and the event store. */
  private closed(id: string, events: SessionEventStore | undefined): void {
    this.sessions.delete(id);
    this.idle.forget(id);
    const { shared } = this.ctx;
    const warn = (what: string) => (error: unknown) => this.ctx.log.warn({ err: String(error) }, what);
    // Shutting down, a replica of several lets its sessions go, events included: another one adopts them.
    if (shared && this.closingAll) {
      shared.directory.release(id).catch(warn('redis: session not released'));
      return;
    }
    if (shared) shared.directory.remove(id).catch(warn('redis: session record not removed'));
    if (events) events.forget().catch(warn('event store: forget failed'));
  }

  /**
   * Whether this replica serves a request for session `id`: it holds the session (or, alone, answers 'Session not
   * found' itself), or has just adopted it. False when the request was answered elsewhere: forwarded to the replica
   * that holds it, or refused (session-routing.ts). Known at once, without a promise turn, unless it asks the others.
   */
  private heldHere(
    req: IncomingMessage,
    res: ServerResponse,
    token: string,
    id: string,
    body?: Buffer,
  ): boolean | Promise<boolean> {
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
    return this.routing.route(req, res, token, id, body).then((routed) => routed.kind === 'adopted');
  }

  /**
   * The replica that holds the call a 2026-07-28 client's retry (its requestState) goes on with (a legacy server's
   * question bridged into an input_required result), when another one does and the request was not forwarded already.
   */
  private holderElsewhere(req: IncomingMessage, frame: Frame): string | undefined {
    const { shared, gateway } = this.ctx;
    if (!shared || shared.forwarding.read(req.headers[FORWARDED_HEADER]) !== undefined) return undefined;
    return gateway.bridge.holderElsewhere(frame.params.requestState);
  }

  /**
   * Sends such a retry to its holder, the only replica that can go on with the call. True when forwarded; false to
   * serve it here (the holder is gone: the state is then refused here).
   */
  private async retryForwarded(
    req: IncomingMessage,
    res: ServerResponse,
    holder: string,
    raw: Buffer,
  ): Promise<boolean> {
    const { shared, log } = this.ctx;
    if (!shared) return false;
    const url = await shared.directory.replicaUrl(holder).catch(() => undefined);
    if (url === undefined) return false;
    return (await forwardRequest(req, res, url, raw, shared.forwarding.make(holder), log)) === 'forwarded';
  }

  /**
   * A session another replica held, served here from now on (session-routing.ts decided so): the client's own
   * `initialize` is replayed to the relay (its capabilities, version and era, and the upstream connections opened
   * for it), whose answer goes nowhere: the client had it from the first replica.
   */
  private async recreate(id: string, record: SessionRecord, req: IncomingMessage): Promise<void> {
    if (!record.init) throw new Error('the session has no initialize to replay');
    const session = this.ctx.gateway.createSession(
      this.identityOf(record.owner, record.token, baseUrl(this.ctx.config, req)),
      { era: 'legacy' },
    );
    const store = this.ctx.resumption?.store;
    const events = store && record.events ? sessionEventStore(store, record.events) : undefined;
    const wire = this.streamable(id, record.token, session, events);
    wire.protocolVersion = record.init.protocolVersion;
    try {
      await this.ctx.gateway.replayInitialize(session, record.init);
    } catch (error) {
      await wire.close();
      throw error;
    }
    this.idle.begin(id)();
  }

  /** GET /sse: a legacy SSE session; its messages arrive at POST /messages?sessionId=… */
  async handleSse(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    if (req.method !== 'GET') return rpcError(res, 405, 'GET /sse opens an event stream');
    if (this.ctx.draining()) return rpcError(res, 503, 'mcp-offload is shutting down');
    if (!this.quota.admit(token, res)) return;
    // Counted at once, so that GETs arriving together cannot open more than the cap between the check and the count.
    const leave = this.quota.add(token);
    const session = this.ctx.gateway.createSession(this.identity(req, token), { era: 'legacy' });
    const { shared } = this.ctx;
    const wire = new SseSession(SSE_MESSAGES_PATH, res);
    const id = wire.id;
    await shared?.directory
      .register(id, { token, owner: session.owner, events: '', init: null, kind: 'sse' })
      .catch((error: unknown) =>
        this.ctx.log.warn({ err: String(error) }, 'redis: session not shared; only this replica can serve it'),
      );
    const removeRecord = () =>
      shared?.directory
        .remove(id)
        .catch((error: unknown) => this.ctx.log.warn({ err: String(error) }, 'redis: session record not removed'));
    if (res.destroyed) {
      // The client left while the session was being registered: nothing will close it later.
      leave();
      void removeRecord();
      await session.close();
      return;
    }
    session.attach(wire);
    const relayed = wire.onclose;
    wire.onclose = () => {
      relayed?.();
      leave();
      this.sessions.delete(id);
      void removeRecord();
    };
    this.sessions.set(id, { token, session, wire });
    // Only now, registered (with Redis, for every replica) and in the map, does the client learn the id: its POSTs,
    // wherever they land, find the session.
    wire.open();
    this.ctx.log.debug({ session: session.id, token }, 'sse session opened');
  }

  async handleMessages(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    if (req.method !== 'POST') return rpcError(res, 405, 'POST a JSON-RPC message');
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '';
    const raw = await this.readRaw(req, res);
    if (raw === undefined) return;
    // Another replica's SSE session: its stream is there, so its messages go there (it is never adopted).
    const held = this.heldHere(req, res, token, id, raw);
    if (held !== true && !(await held)) return;
    const found = this.find(id, token);
    if (!found || !(found.wire instanceof SseSession)) return rpcError(res, 404, 'Session not found');
    if (!isJsonType(req.headers['content-type'])) {
      res.writeHead(400).end(`Unsupported content-type: ${String(req.headers['content-type'])}`);
      return;
    }
    const frames = bodyOf(raw)?.frames;
    if (!frames || frames.length !== 1) {
      res.writeHead(400).end('Invalid message: not one JSON-RPC message');
      return;
    }
    if (this.ctx.draining() && frames[0]!.kind === 'request') return rpcError(res, 503, 'mcp-offload is shutting down');
    found.wire.post(res, frames[0]!, { headers: req.headers });
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
    this.ctx.log.info(
      { session: found.session.id, token: found.token, idleMs },
      'http session ended: its client sent nothing for http.sessionIdleMs',
    );
    void found.wire.close();
  }

  private modernIdentity(token: string, origin: string | undefined): SessionIdentity {
    const base = this.ctx.config.artifacts.publicUrl ?? origin ?? 'http://localhost';
    return this.identityOf(principalOwner(token), token, base);
  }

  async closeAll(): Promise<void> {
    this.closingAll = true;
    this.idle.stop();
    await this.modern.closeAll();
    await Promise.all([...this.sessions.values()].map(({ wire }) => wire.close()));
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
    const owner = sessionOwner(this.ctx.config.auth, token, this.ctx.auth.authenticates);
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

/** The body's messages as frames (one, or each of a batch), or undefined when it is not JSON. */
function bodyOf(raw: Buffer): { frames: Frame[]; batch: boolean } | undefined {
  let frame: Frame;
  try {
    frame = Frame.read(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  const value = frame.message as unknown;
  if (!Array.isArray(value)) return { frames: [frame], batch: false };
  return { frames: value.map((item) => Frame.of(item as Frame['message'])), batch: true };
}

function isJsonType(type: string | undefined): boolean {
  return (type ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export { originOf };
