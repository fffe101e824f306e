import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Tool } from '@modelcontextprotocol/server';
import { Listens } from '../relay/listens.js';
import type { SessionIdentity } from '../relay/session.js';
import type { Frame } from '../wire/frame.js';
import { messageEvent } from '../wire/sse.js';
import type { FrameContext, Wire } from '../wire/wire.js';
import { LazyAnswer } from './answer.js';
import { sendJson, type HttpContext } from './context.js';
import { IdleSessions } from './idle-sessions.js';
import { paramHeaderRejection } from './param-header-check.js';
import { decodeParamValue } from '../protocol/param-header-codec.js';

/** How often an open stream (a listen request's, or a slow call's) gets a keep-alive comment. */
const KEEP_ALIVE_MS = 15_000;

/** The methods whose `Mcp-Name` header mirrors a body field, and which field (SEP-2243). */
const NAME_SOURCE = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
]);

/** The requests of the 2026-07-28 revision (and its tasks extension) the proxy serves. */
const KNOWN_METHODS = new Set([
  'server/discover',
  'subscriptions/listen',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]);

/** JSON-RPC HeaderMismatch: the request's headers and its body disagree. */
const HEADER_MISMATCH = -32020;

/** A principal's 2026-07-28 clients: their listen streams (every request of theirs is a session of its own). */
interface Principal {
  listens: Listens;
}

/**
 * The 2026-07-28 side of /mcp: every POST is one request, served by a session of its own (nothing kept between
 * requests) over the shared upstream connections; its artifacts belong to the principal (a token's name or an OAuth
 * subject), whose listen streams hear of the changes that concern it. A principal unused for http.sessionIdleMs
 * with nothing open is let go.
 */
export class ModernPosts {
  private readonly principals = new Map<string, Principal>();
  private readonly idle: IdleSessions;

  constructor(
    private readonly ctx: HttpContext,
    /** Who a principal's requests act for, given the origin its client reached the proxy at. */
    private readonly identity: (token: string, origin: string | undefined) => SessionIdentity,
  ) {
    this.idle = new IdleSessions(ctx.config.httpOptions.sessionIdleMs, (token) => this.letGo(token));
    ctx.gateway.onSharedChange((method, params) => {
      for (const { listens } of this.principals.values()) listens.publish(method, params);
    });
  }

  /** Serves one 2026-07-28 POST (the era decided already) for the principal `token`. */
  serve(token: string, req: IncomingMessage, res: ServerResponse, frame: Frame): void {
    res.once('close', this.idle.begin(token));
    if (frame.kind === 'notification') {
      // The 2026-07-28 revision defines no client notification over HTTP: accepted, and nothing to do.
      res.writeHead(202).end();
      return;
    }
    if (!KNOWN_METHODS.has(frame.method ?? '')) {
      // Not passed on even to a lone upstream: a 2026-07-28 server answers an unknown method alike, with 404.
      return sendJson(res, 404, {
        jsonrpc: '2.0',
        id: frame.id ?? null,
        error: { code: -32601, message: 'Method not found' },
      });
    }
    const rejection = headerRejection(req, frame, (name) => this.ctx.gateway.catalog.tool(name)?.item);
    if (rejection) return sendJson(res, 400, { jsonrpc: '2.0', id: frame.id ?? null, error: rejection });
    const principal = this.principalOf(token);
    const origin = originOf(req);
    const session = this.ctx.gateway.createSession(this.identity(token, origin), {
      era: 'modern',
      transient: true,
      listens: principal.listens,
    });
    const wire = new PostWire(res, frame.method === 'subscriptions/listen');
    session.attach(wire);
    wire.onframe?.(frame, { headers: req.headers, ...(origin !== undefined ? { origin } : {}) });
  }

  async closeAll(): Promise<void> {
    this.idle.stop();
    for (const { listens } of this.principals.values()) listens.close();
    this.principals.clear();
  }

  private principalOf(token: string): Principal {
    let principal = this.principals.get(token);
    if (!principal) this.principals.set(token, (principal = { listens: new Listens() }));
    return principal;
  }

  private letGo(token: string): void {
    const principal = this.principals.get(token);
    if (!principal || principal.listens.size > 0) return;
    this.principals.delete(token);
    this.ctx.log.debug({ token }, 'modern endpoint let go: unused for http.sessionIdleMs');
  }
}

/**
 * The response to one 2026-07-28 POST as a wire: what belongs to the request (progress, a log message) and its
 * answer go out on it, as one JSON body when the answer is the first thing, else as an SSE stream (answer.ts); a
 * listen request's stream stays open (kept alive by comments) until the client closes it, which cancels the request.
 */
class PostWire implements Wire {
  onframe?: Wire['onframe'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly lazy: LazyAnswer;
  private closed = false;

  constructor(res: ServerResponse, listen: boolean) {
    // Quiet until its first keep-alive is due: an answer by then, errors that must be a 400 included, keeps its status.
    this.lazy = new LazyAnswer(res, { headers: {}, keepAliveMs: KEEP_ALIVE_MS, openAfterMs: KEEP_ALIVE_MS });
    if (listen) this.lazy.openStream();
    res.once('close', () => this.ended());
  }

  async send(frame: Frame): Promise<void> {
    if (this.closed) return;
    if (frame.kind === 'response') {
      this.lazy.answer(frame, statusOf(frame.message.error?.code));
      this.ended();
      return;
    }
    this.lazy.event(messageEvent(frame));
  }

  async close(): Promise<void> {
    this.lazy.end();
    this.ended();
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/**
 * The HTTP status of an answer (2026-07-28 Streamable HTTP): a request refused for its version, headers or the
 * client's capabilities is 400; every other answer, errors included, 200 (an unknown method is refused before).
 */
function statusOf(code: number | undefined): number {
  if (code === -32020 || code === -32021 || code === -32022) return 400;
  return 200;
}

/**
 * What the SDK's 2026-07-28 entry checks of a request's headers before serving it (SEP-2243): `MCP-Protocol-Version`
 * and `Mcp-Method` present, `Mcp-Name` present and equal to the body's name or URI, and for a tool call every
 * `Mcp-Param-*` header its tool declares (the tool as the merged catalog lists it). The error to answer with (400),
 * or undefined. (Mismatches of the first two with the body are refused earlier, by the SDK's own classification.)
 */
function headerRejection(
  req: IncomingMessage,
  frame: Frame,
  toolNamed: (name: string) => Tool | undefined,
): { code: number; message: string; data?: unknown } | undefined {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const method = frame.method ?? '';
  const mismatch = (shown: string, detail: string) => ({
    code: HEADER_MISMATCH,
    message: `Bad Request: the request headers and body disagree: ${detail}`,
    data: { mismatch: { header: shown, body: detail } },
  });
  if (header('mcp-protocol-version') === undefined) {
    const claimed = (frame.params._meta as Record<string, unknown> | undefined)?.[
      'io.modelcontextprotocol/protocolVersion'
    ];
    return mismatch(
      '(missing)',
      `the body envelope names protocol version ${String(claimed)} but the required MCP-Protocol-Version header is absent`,
    );
  }
  if (header('mcp-method') === undefined)
    return mismatch('(missing)', `the body names method ${method} but the required Mcp-Method header is absent`);
  const field = NAME_SOURCE.get(method);
  if (field !== undefined) {
    const value = frame.params[field];
    const body = typeof value === 'string' ? value : undefined;
    const name = header('mcp-name');
    if (name === undefined) {
      if (body !== undefined)
        return mismatch(
          '(missing)',
          `the body carries params.${field}="${body}" but the required Mcp-Name header is absent`,
        );
    } else {
      const shown = name.replace(/^[\t ]+|[\t ]+$/g, '');
      const decoded = decodeParamValue(shown);
      if (decoded === undefined) return mismatch(shown, 'the Mcp-Name header carries an invalid Base64 sentinel value');
      if (body !== undefined && decoded !== body)
        return mismatch(shown, `the body carries params.${field}="${body}" but the Mcp-Name header names "${decoded}"`);
    }
  }
  if (method !== 'tools/call') return undefined;
  return paramHeaderRejection(frame.message, headerGetter(req), toolNamed)?.body.error;
}

function headerGetter(req: IncomingMessage): Pick<Headers, 'get'> {
  return {
    get: (name) => {
      const value = req.headers[name.toLowerCase()];
      if (value === undefined) return null;
      const trim = (text: string) => text.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
      return Array.isArray(value) ? value.map(trim).join(', ') : trim(value);
    },
  };
}

/** Origins by Host header, beyond which the table starts over: a client may send any Host when any is allowed. */
const MAX_ORIGINS = 256;
const origins = new Map<string, string | undefined>();

/**
 * The origin a client reached the proxy at (`http://` and its Host header), for the links in its summaries. Read
 * once per Host: the URL parser costs some 7 µs a request there, on the way of every 2026-07-28 POST.
 */
export function originOf(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (host === undefined) return undefined;
  if (origins.has(host)) return origins.get(host);
  let origin: string | undefined;
  try {
    origin = new URL(`http://${host}`).origin;
  } catch {
    origin = undefined;
  }
  if (origins.size >= MAX_ORIGINS) origins.clear();
  origins.set(host, origin);
  return origin;
}

export type { FrameContext };
