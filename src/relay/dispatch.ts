import type { Logger } from '../logger.js';
import type { Upstream } from '../upstreams/upstream.js';
import { Frame } from '../wire/frame.js';
import { Call } from './call.js';
import { compose, type Interceptor, type Next } from './chain.js';
import { envelopeOf } from '../protocol/envelope.js';
import { asRpcError, CancelledError, Codes, ConnectionClosedError, RpcError, TimeoutError } from '../rpc/errors.js';
import { Note } from './note.js';
import { keyOf } from '../rpc/peer.js';
import type { ClientHello, Session } from './session.js';
import type { RequestEnvelope } from '../protocol/envelope.js';
import type { FrameContext } from '../wire/wire.js';
import type { SendOptions } from '../upstreams/upstream.js';
import { tracedSend } from './traced.js';

/** How long a request from an upstream to a client (a user answering, a model sampling) may take. */
const CLIENT_REQUEST_TIMEOUT_MS = 30 * 60_000;

/**
 * The one path every message takes: a request or notification from a client or an upstream becomes a Call or a
 * Note, runs through the interceptor chain (src/relay/order.ts), and the terminal sends it where the chain routed
 * it; a request's answer goes back to whoever asked, as the frame it came as when no interceptor changed it.
 */
export class Dispatcher {
  private readonly chain: { request: Next; notification: (note: Note) => void };

  constructor(
    interceptors: readonly Interceptor[],
    private readonly log: Logger,
  ) {
    this.chain = compose(interceptors, { request: forward, notification: deliver });
  }

  /** A client's request: answered on the client's wire, unless the client cancelled it. */
  clientRequest(session: Session, frame: Frame, context?: FrameContext): void {
    // An id of 256 KiB or more is a marker in the parsed frame (literal-cutter.ts): the answer carries the id itself.
    const id = frame.blobs.restore(frame.id!);
    const own = session.era === 'modern' || session.era === undefined ? envelopeOf(frame.params._meta) : undefined;
    const hello = session.hello ? helloEnvelope(session.hello) : undefined;
    const call = new Call(frame, session, hello ? (own ? { ...hello, ...own } : hello) : (own ?? {}));
    if (context?.headers) call.headers = context.headers;
    const key = keyOf(id);
    session.calls.set(key, call);
    const token = (frame.params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    if (token !== undefined && token !== null) {
      call.progress = (params) =>
        void session.send(Frame.notification('notifications/progress', { ...params, progressToken: token }), {
          related: id,
        });
    }
    if (session.pausable) call.pause = (retryMs, resume) => session.pause(id, retryMs, resume);
    this.run(call, (answer) => {
      // Answered, the call is no longer the session's to cancel: a wire that ends with its answer (a 2026-07-28 POST)
      // closes the session as the answer is written, which would abort the finished call.
      if (session.calls.get(key) === call) session.calls.delete(key);
      // A cancelled request is not answered (MCP: the asker no longer waits for it). The answer is written first, the
      // rest of the bookkeeping after: nothing below changes what the client gets.
      if (answer)
        void session
          .answer(id, answer)
          .finally(() => answer.blobs.dispose())
          .catch(() => undefined);
      frame.blobs.dispose();
      this.finished(call, answer);
    });
  }

  /** A client's notification. */
  clientNotification(session: Session, frame: Frame): void {
    this.chain.notification(new Note(frame, session));
  }

  /** An upstream's request to a client; `reply` answers it on the connection it came on. */
  upstreamRequest(upstream: Upstream, frame: Frame, reply: (answer: Frame) => void): void {
    const call = new Call(frame, upstream, {});
    const token = (frame.params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    if (token !== undefined && token !== null) {
      call.progress = (params) =>
        void upstream.notify(Frame.notification('notifications/progress', { ...params, progressToken: token }));
    }
    const key = keyOf(frame.id);
    upstream.calls.set(key, call);
    this.run(call, (answer) => {
      if (answer) reply(answer);
      if (upstream.calls.get(key) === call) upstream.calls.delete(key);
      frame.blobs.dispose();
      this.finished(call, answer);
    });
  }

  upstreamNotification(upstream: Upstream, frame: Frame): void {
    this.chain.notification(new Note(frame, upstream));
  }

  /** What watches the call learns it is over (Call.afterAnswer); what it throws is logged, never the call's. */
  private finished(call: Call, answer: Frame | undefined): void {
    call.finished(answer, (error) =>
      this.log.error(
        { err: error instanceof Error ? error.stack : String(error), method: call.method },
        'after a call',
      ),
    );
  }

  /**
   * Runs a call through the chain; `done` gets the answer frame, or undefined when the asker cancelled it. Attached
   * straight to the chain's answer: the answer reaches `done` (and the asker's wire) one turn after the last
   * interceptor's, where an async function awaiting it would take two.
   */
  private run(call: Call, done: (answer: Frame | undefined) => void): void {
    let answer: Promise<Frame>;
    try {
      answer = this.chain.request(call);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(done, (error: unknown) => done(this.failure(call, error)));
  }

  /** The error frame for a call that failed, or undefined when it was cancelled (and so is not answered). */
  private failure(call: Call, error: unknown): Frame | undefined {
    if (call.cancellation.aborted || error instanceof CancelledError) return undefined;
    if (!(error instanceof RpcError || error instanceof ConnectionClosedError || error instanceof TimeoutError)) {
      this.log.error(
        { err: error instanceof Error ? error.stack : String(error), method: call.method },
        'request failed',
      );
    }
    return Frame.error(call.received.id ?? null, asRpcError(error).toWire());
  }
}

/**
 * What a 2025 client said in `initialize`, as the envelope its requests carry to a 2026-07-28 upstream: made once per
 * handshake and shared by the session's calls (envelopes are read, never changed).
 */
function helloEnvelope(hello: ClientHello): RequestEnvelope {
  let envelope = helloEnvelopes.get(hello);
  if (!envelope) {
    envelope = {
      ...(hello.clientInfo ? { clientInfo: hello.clientInfo } : {}),
      ...(hello.capabilities ? { clientCapabilities: hello.capabilities } : {}),
      ...(hello.protocolVersion ? { protocolVersion: hello.protocolVersion } : {}),
    };
    helloEnvelopes.set(hello, envelope);
  }
  return envelope;
}

const helloEnvelopes = new WeakMap<ClientHello, RequestEnvelope>();

/** The terminal for requests: the routed call goes to its upstream, or to its client (an upstream's question). */
async function forward(call: Call): Promise<Frame> {
  const to = call.to;
  if (!to) throw new RpcError(Codes.MethodNotFound, `Method not found: ${call.method}`);
  if (to.side === 'server') {
    const options: SendOptions = { signal: call.cancellation, envelope: call.envelope };
    if (call.progress) options.onprogress = call.progress;
    if (call.pause) options.onpause = call.pause;
    const answer = await (call.trace ? tracedSend(call, to, options) : to.send(call.frame, options));
    call.upstreamAnswer = answer;
    return answer;
  }
  const session = call.from.side === 'server' ? to : undefined;
  if (!session) throw new RpcError(Codes.InternalError, 'a client request routed to a client');
  const related = session.requestServedBy(call.from as Upstream);
  return session.ask(call.frame, {
    signal: call.cancellation,
    timeoutMs: CLIENT_REQUEST_TIMEOUT_MS,
    ...(related !== undefined ? { send: { related } } : {}),
    ...(call.progress ? { onprogress: call.progress } : {}),
  });
}

/** The terminal for notifications: each delivery to its party; then the frames' blobs are let go. */
function deliver(note: Note): void {
  const sent: Promise<void>[] = [];
  for (const { to, frame, related } of note.deliveries) {
    if (to.side === 'client') sent.push(to.send(frame, related !== undefined ? { related } : undefined));
    else sent.push(to.notify(frame));
  }
  const frames = new Set([note.frame, ...note.deliveries.map((d) => d.frame)]);
  void Promise.allSettled(sent).then(() => {
    for (const frame of frames) frame.blobs.dispose();
  });
}
