import type { InitializeRequest } from '@modelcontextprotocol/server';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { Frame } from '../../wire/frame.js';
import type { Call } from '../call.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { PROTOCOL_VERSION_KEY, SERVER_INFO_KEY } from '../../protocol/envelope.js';
import { Codes, RpcError } from '../../rpc/errors.js';
import { forLegacyClient, forModernClient } from '../results.js';
import { quoted, textIn } from '../param-text.js';
import type { ClientHello, Session } from '../session.js';

/** Methods of the 2025 revision that the 2026-07-28 one removed (a modern client asking them is told so). */
const LEGACY_ONLY = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'tasks/result',
  'tasks/list',
]);

/**
 * The client's side of the two protocol eras. A 2025 client introduces itself with `initialize` (the upstreams that
 * serve it are started as it before it is answered) and `initialized`, and may `ping`; a 2026-07-28 client sends its
 * envelope with every request and may ask `server/discover`. On stdio the client's first message decides its era,
 * as the SDK's stdio entry decides it: `initialize` or a request without an envelope opens a 2025 session, one with
 * an envelope a modern one, and a `server/discover` probe is answered without deciding anything (a client may probe
 * and then initialize). Cancellation is handled here too: the client's request is stopped and not answered.
 */
export function handshake(context: RelayContext): Interceptor {
  return {
    name: 'handshake',
    // Not async: a 2025 client's ordinary call passes with no turn of its own (chain.ts).
    request(call, next) {
      if (!call.fromClient) {
        // An upstream's ping is the proxy's to answer: the proxy is its client.
        if (call.method === 'ping') return Promise.resolve(Frame.result(call.received.id!, {}));
        return next(call);
      }
      const session = call.session!;
      const claim = claimOf(call);
      if (session.era === undefined) {
        if (call.method === 'server/discover' && claim !== undefined)
          return Promise.resolve(discover(context, session, call));
        session.pin(claim !== undefined && call.method !== 'initialize' ? 'modern' : 'legacy');
        // A 2026-07-28 client has no handshake: it is there once it has sent something (an upstream's question that
        // waited for a client learns at once that it cannot be asked outside a call).
        if (session.era === 'modern') context.clientArrived();
      }
      if (session.era === 'legacy') {
        if (call.method === 'initialize') return initialize(context, session, call);
        if (call.method === 'ping') return Promise.resolve(Frame.result(call.received.id!, {}));
        const answer = next(call);
        // A 2026-07-28 upstream's result, as a 2025 client's schemas know results. (Routed already, unless routing
        // waits for a login: then the upstream is known once the answer is.)
        if (call.to) return call.upstream?.era === 'modern' ? answer.then(forLegacyClient) : answer;
        return answer.then((frame) => (call.upstream?.era === 'modern' ? forLegacyClient(frame) : frame));
      }
      const refused = modernRefusal(call.method, claim, call.params);
      if (refused) throw refused;
      if (call.method === 'server/discover') return Promise.resolve(discover(context, session, call));
      // Every result a 2026-07-28 client gets has what that revision requires (the proxy's own, a legacy upstream's).
      return next(call).then((answer) =>
        forModernClient(answer, call.method, context.serverInfo(session.view.upstreams)),
      );
    },
    hears: (method, fromClient) =>
      fromClient && (method === 'notifications/initialized' || method === 'notifications/cancelled'),
    notification(note, next) {
      const session = note.from as Session;
      switch (note.method) {
        case 'notifications/initialized':
          session.initialized();
          context.clientArrived();
          return;
        case 'notifications/cancelled': {
          const id = note.frame.blobs.restore(note.params.requestId);
          session.call(id)?.cancel(note.params.reason ?? 'cancelled by the client');
          return;
        }
        default:
          next(note);
      }
    },
  };
}

/** The protocol version a request's `_meta` claims (the 2026-07-28 envelope), if any. */
function claimOf(call: Call): string | undefined {
  const meta = call.params._meta as Record<string, unknown> | undefined;
  if (meta === null || typeof meta !== 'object') return undefined;
  const version = meta[PROTOCOL_VERSION_KEY];
  return version === undefined ? undefined : textIn(call.frame, version);
}

/**
 * Why a 2026-07-28 client's request cannot be served, as the SDK's entry answers it: a revision the proxy does not
 * speak, a request without the envelope, or a method of the 2025 revision. Undefined when it can be.
 */
export function modernRefusal(
  method: string,
  claim: string | undefined,
  params: Record<string, unknown>,
): RpcError | undefined {
  // The usual case first, with nothing made for it: this runs for every request of a 2026-07-28 client.
  if (claim !== undefined && MODERN_PROTOCOL_VERSIONS.includes(claim))
    return LEGACY_ONLY.has(method) ? new RpcError(Codes.MethodNotFound, `Method not found: ${method}`) : undefined;
  const supported = [...MODERN_PROTOCOL_VERSIONS];
  if (claim === undefined) {
    if (method === 'initialize') {
      const requested = typeof params.protocolVersion === 'string' ? quoted(params.protocolVersion) : 'unknown';
      return new RpcError(
        Codes.UnsupportedProtocolVersion,
        `Unsupported protocol version: ${requested} (supported versions: ${supported.join(', ')})`,
        { supported, requested },
      );
    }
    return new RpcError(Codes.InvalidParams, `Invalid params: _meta["${PROTOCOL_VERSION_KEY}"] is required`);
  }
  return new RpcError(
    Codes.UnsupportedProtocolVersion,
    `Unsupported protocol version: ${quoted(claim)} (supported versions: ${supported.join(', ')})`,
    { supported, requested: quoted(claim) },
  );
}

/** `server/discover`: the versions, capabilities and identity of what serves the session. */
function discover(context: RelayContext, session: Session, call: Call): Frame {
  const upstreams = session.view.upstreams;
  const instructions = context.instructions(upstreams);
  return Frame.result(call.received.id!, {
    resultType: 'complete',
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities: context.capabilities(upstreams),
    ...(instructions !== undefined ? { instructions } : {}),
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [SERVER_INFO_KEY]: context.serverInfo(upstreams) },
  });
}

/**
 * A 2025 client's `initialize`: the upstreams that serve it are started as this client first (gateway.ts), and it
 * is answered with what they answered: their identity and capabilities, and the version the one upstream agreed to
 * (else the client's own when the proxy speaks it, else the newest).
 */
async function initialize(context: RelayContext, session: Session, call: Call): Promise<Frame> {
  // Restored: what a client says of itself outlives this request's frame (it goes with its requests upstream).
  const params = call.frame.blobs.restore(call.params) as InitializeRequest['params'];
  if (session.hello) throw new RpcError(Codes.InvalidRequest, 'Invalid Request: the session is initialized already');
  const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined;
  session.hello = helloOf(params);
  const answer = await context.initialize(session, params);
  const agreed = answer.protocolVersion;
  const protocolVersion =
    agreed !== undefined && LEGACY_PROTOCOL_VERSIONS.includes(agreed)
      ? agreed
      : asked !== undefined && LEGACY_PROTOCOL_VERSIONS.includes(asked)
        ? asked
        : LEGACY_PROTOCOL_VERSIONS[0]!;
  return Frame.result(call.received.id!, {
    protocolVersion,
    capabilities: answer.capabilities,
    serverInfo: answer.serverInfo,
    ...(answer.instructions !== undefined ? { instructions: answer.instructions } : {}),
  });
}

/** What a 2025 client says of itself in `initialize`. */
export function helloOf(params: InitializeRequest['params']): ClientHello {
  const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined;
  return {
    ...(params.clientInfo ? { clientInfo: params.clientInfo } : {}),
    ...(params.capabilities ? { capabilities: params.capabilities } : {}),
    ...(asked !== undefined ? { protocolVersion: asked } : {}),
  };
}
