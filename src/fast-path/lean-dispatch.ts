import { SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import type {
  JSONRPCMessage,
  Result,
  JSONRPCRequest,
  MessageExtraInfo,
  Notification,
  NotificationOptions,
  Request,
  RequestId,
  RequestOptions,
  Server,
  ServerContext,
  Transport,
} from '@modelcontextprotocol/server';
import { ResultSchema } from '@modelcontextprotocol/core';
import { isLeanMessage, isLeanRequest, isModernLeanRequest, routesToLegacy, type ToolRoutes } from './eligibility.js';
import { liftEnvelope, modernCodecOf, serverInfoOf } from './modern-wire.js';
import { answerMessage, leanContext } from './lean-call.js';
import { EnvelopeVerdicts } from './envelope-verdicts.js';
import { isLegacyVersion } from '../protocol/versions.js';
import type { TransportHooks } from '../transports/decorated-transport.js';

/** What the lean dispatcher needs of a session (gateway/session.ts). */
export interface LeanSession {
  readonly server: Server;
  readonly isClosed: boolean;
  readonly era: 'modern' | 'legacy';
  readonly view: { catalog: ToolRoutes };
  /** The session's handler, for a request whose answer is written as the handler gives it (no SDK encoding). */
  serveLean(request: JSONRPCRequest, ctx: ServerContext): Promise<Result>;
  /** The relay lane's take on a call: what cancels it, or undefined when the handler serves it. */
  relayCall(
    request: JSONRPCRequest,
    answer: (answer: { result: Result } | { error: Error }) => void,
    envelope?: Record<string, unknown>,
  ): ((reason: unknown) => void) | undefined;
}

/**
 * Serves a legacy-era session's calls without the SDK server's dispatcher: the request goes to the same handler
 * (the session's fallback handler, so routing, the pipeline, events and verbatim answers are the same), with the
 * context the SDK would build, and its answer is written as the SDK writes it. What it skips is what the SDK does
 * for the 2026-07-28 era and for handlers that have schemas: classifying the message and its era, lifting the
 * per-request envelope, the multi-round-trip seam, encoding the result for the era (VerbatimResponses puts the
 * handler's own answer back in any case). So it takes only requests where all of that does nothing: a session that
 * negotiated a legacy version, a request without 2026-07-28 vocabulary (eligibility.ts), a route to a legacy-era
 * upstream (whose results cannot be input_required). Everything else goes to the SDK as before.
 *
 * A 2026-07-28 stdio session's first-round `tools/call` is taken too, to any upstream, once the SDK's stdio entry has
 * pinned the connection: for it the dispatcher does those steps itself, as the SDK does them (modern-wire.ts), and
 * leaves to the SDK an envelope the SDK's own check refuses.
 *
 * As the SDK does: a notifications/cancelled for a request it serves aborts the handler's signal and the request
 * is not answered; a closing transport aborts every handler.
 *
 * A call the session's relay lane takes (gateway/relay-lane.ts: the handler's steps without its layers) is not
 * handed to the handler at all; cancelling it or closing the transport stops it the same way.
 */
export class LeanDispatch {
  private readonly inflight = new Map<RequestId, AbortController>();
  /**
   * A 2026-07-28 stdio session's entry has pinned the connection to the session's server (it delivered it a request
   * other than server/discover): from then on the entry passes requests straight to it, so they may be taken here.
   */
  private modernPinned = false;
  /** The SDK's verdicts on the 2026-07-28 envelopes seen; null without its codec (SDK internals moved). */
  private envelopeVerdicts?: EnvelopeVerdicts | null;
  /** Calls the session's relay lane took (gateway/relay-lane.ts), by id, with what cancels each. */
  private readonly lanes = new Map<RequestId, (reason: unknown) => void>();
  private transport?: Transport;
  /** The wire beneath the SDK's stdio entry, once requests are taken there (see beneathEntry). */
  private wire?: Transport;

  constructor(private readonly session: LeanSession) {}

  /**
   * Hooks for the wire the SDK's stdio entry (`serveStdio`) reads: the lean dispatcher of the entry's current
   * legacy session takes its requests there, before the entry's queue and type guards, and answers on the wire.
   * The entry sees everything else as before, in order.
   */
  static beneathEntry(hooks: TransportHooks, current: () => LeanDispatch | undefined): TransportHooks {
    let wire: Transport | undefined;
    return {
      ...hooks,
      inbound: (message, extra) => {
        const lean = current();
        if (lean && wire && lean.takeFromWire(message, wire)) return undefined;
        return hooks.inbound ? hooks.inbound(message, extra) : message;
      },
      attached: (decorated) => {
        wire = decorated;
        hooks.attached?.(decorated);
      },
    };
  }

  private takeFromWire(message: JSONRPCMessage, wire: Transport): boolean {
    if (this.session.era === 'modern') {
      if (!this.modernPinned) return false;
      this.wire = wire;
      return this.takeModern(message);
    }
    if (!this.transport) return false;
    this.wire = wire;
    return this.take(message);
  }

  /**
   * Hooks for a 2026-07-28 stdio session's server: the first request other than server/discover that the entry
   * delivers to it means the entry has pinned the connection (before that, a probe may still be discarded), and a
   * closing transport aborts the handlers this dispatcher runs.
   */
  modernHooks(): TransportHooks {
    return {
      inbound: (message) => {
        if ('method' in message && 'id' in message && message.method !== 'server/discover') this.modernPinned = true;
        return message;
      },
      closed: () => this.close(),
    };
  }

  /** A 2026-07-28 message off the wire: taken when it is a call the SDK would serve, with an envelope that holds. */
  private takeModern(message: JSONRPCMessage): boolean {
    if ('method' in message && message.method === 'notifications/cancelled') return this.take(message);
    if (!isModernLeanRequest(message) || !this.acceptsModern(message)) return false;
    const { request, envelope } = liftEnvelope(message);
    if (!this.envelopeHolds(envelope)) return false;
    this.dispatch(request, undefined, envelope);
    return true;
  }

  /**
   * Any tool's call, a 2026-07-28 upstream's too: the handler passes that upstream's input_required and task answers
   * on as they came, and the SDK's server would only encode them (the proxy's handler is its catch-all, which the
   * SDK does not wrap with its own checks).
   */
  private acceptsModern(request: JSONRPCRequest): boolean {
    const { session } = this;
    return !(session.isClosed || this.inflight.has(request.id) || this.lanes.has(request.id));
  }

  /**
   * Whether the SDK would accept this envelope (its codec's own check, so its verdict and error text stay the SDK's:
   * one it would refuse is left to it). Without the codec (an SDK whose internals moved) nothing is taken.
   */
  private envelopeHolds(envelope: Record<string, unknown>): boolean {
    if (this.envelopeVerdicts === undefined) {
      const codec = modernCodecOf(this.session.server);
      this.envelopeVerdicts = codec
        ? new EnvelopeVerdicts((judged) => codec.checkInboundEnvelope({ envelope: judged }) === undefined)
        : null;
    }
    return this.envelopeVerdicts?.holds(envelope) ?? false;
  }

  /**
   * The session transport's decorator hooks with the lean dispatcher's own around them: it takes its requests
   * before `hooks.inbound` (and the SDK) see them, answers them through the decorated transport (so
   * `hooks.outbound` sees its answers too), and aborts its handlers when the transport closes.
   */
  hooks(hooks: TransportHooks): TransportHooks {
    return {
      ...hooks,
      inbound: (message, extra) => {
        if (this.take(message, extra)) return undefined;
        return hooks.inbound ? hooks.inbound(message, extra) : message;
      },
      closed: () => {
        this.close();
        hooks.closed?.();
      },
      attached: (decorated) => {
        this.transport = decorated;
        hooks.attached?.(decorated);
      },
    };
  }

  /**
   * Whether a message the client sent would be taken here (a well-formed request the session may serve this way),
   * for an HTTP POST that is then served past the SDK's Node adapter (http/lean-post.ts).
   */
  wouldTake(message: unknown): message is JSONRPCRequest {
    return isLeanMessage(message) && this.accepts(message);
  }

  /** A message from the client: true when it was taken (the SDK then never sees it). */
  private take(message: JSONRPCMessage, extra?: MessageExtraInfo): boolean {
    if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId === undefined) return false;
      const reason = (message.params as { reason?: unknown }).reason;
      this.inflight.get(requestId)?.abort(reason);
      this.lanes.get(requestId)?.(reason);
      this.lanes.delete(requestId);
      return false;
    }
    if (!isLeanRequest(message, extra) || !this.accepts(message)) return false;
    this.dispatch(message, extra);
    return true;
  }

  /** The transport closed: every handler still running is aborted, as the SDK aborts its own. */
  private close(): void {
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    for (const controller of [...this.inflight.values()]) controller.abort(error);
    this.inflight.clear();
    for (const cancel of [...this.lanes.values()]) cancel(error);
    this.lanes.clear();
  }

  private accepts(request: JSONRPCRequest): boolean {
    const { session } = this;
    if (!this.transport || session.isClosed || this.inflight.has(request.id) || this.lanes.has(request.id))
      return false;
    return (
      isLegacyVersion(session.server.getNegotiatedProtocolVersion()) && routesToLegacy(session.view.catalog, request)
    );
  }

  /** A call to the session's relay lane when it takes it, else to the handler; `envelope` for a 2026-07-28 call. */
  private dispatch(request: JSONRPCRequest, extra?: MessageExtraInfo, envelope?: Record<string, unknown>): void {
    const transport = this.wire ?? this.transport!;
    const { id } = request;
    const modern = envelope !== undefined;
    const cancel = this.session.relayCall(
      request,
      (answer) => {
        if (this.lanes.delete(id)) this.write(transport, id, answer, modern);
      },
      envelope,
    );
    if (cancel) {
      this.lanes.set(id, cancel);
      return;
    }
    this.serve(request, transport, envelope, extra);
  }

  /**
   * Runs the session's handler with the context the SDK would build and writes its answer; with a 2026-07-28
   * `envelope`, the context carries it and the answer is encoded for that revision, as the SDK's server does.
   */
  private serve(
    request: JSONRPCRequest,
    transport: Transport,
    envelope?: Record<string, unknown>,
    extra?: MessageExtraInfo,
  ): void {
    const { server } = this.session;
    const { id } = request;
    const controller = new AbortController();
    this.inflight.set(id, controller);
    const related = { relatedRequestId: id };
    const ctx = leanContext({
      request,
      signal: controller.signal,
      envelope,
      sessionId: transport.sessionId,
      authInfo: extra?.authInfo,
      wire: {
        send: (r: Request, schemaOrOptions?: unknown, maybeOptions?: RequestOptions) =>
          isSchema(schemaOrOptions)
            ? server.request(r, schemaOrOptions as typeof ResultSchema, { ...maybeOptions, ...related })
            : server.request(r as never, { ...(schemaOrOptions as RequestOptions | undefined), ...related }),
        notify: (notification: Notification, options?: NotificationOptions) =>
          server.notification(notification, { ...options, ...related }),
      },
    });
    const modern = envelope !== undefined;
    Promise.resolve()
      .then(() => this.session.serveLean(request, ctx))
      .then(
        (result) => controller.signal.aborted || this.write(transport, id, { result }, modern),
        (error: unknown) => controller.signal.aborted || this.write(transport, id, { error }, modern),
      )
      .finally(() => {
        if (this.inflight.get(id) === controller) this.inflight.delete(id);
      });
  }

  /** Answers request `id` as the SDK writes an answer (lean-call.ts); `modern` for a 2026-07-28 call. */
  private write(
    transport: Transport,
    id: RequestId,
    answer: { result: Result } | { error: unknown },
    modern = false,
  ): void {
    const encoding = modern ? { serverInfo: serverInfoOf(this.session.server) } : undefined;
    transport
      .send(answerMessage(id, answer, encoding))
      .catch((error: unknown) => this.session.server.onerror?.(new Error(`Failed to send response: ${String(error)}`)));
  }
}

function isSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '~standard' in value;
}
