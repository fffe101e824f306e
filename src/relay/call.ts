import type { Frame } from '../wire/frame.js';
import type { CallInfo } from '../pipeline/types.js';
import type { Upstream } from '../upstreams/upstream.js';
import type { RequestEnvelope } from '../protocol/envelope.js';
import type { RequestTrace } from '../tracing/trace.js';
import type { FrameContext } from '../wire/wire.js';
import type { Session } from './session.js';
import { Cancellation, onAbort, type Signal } from '../rpc/cancellation.js';
import { hostsApps } from './client-capabilities.js';

/** One end of a relayed message: a client's session, or an upstream connection. */
export type Party = Session | Upstream;

/**
 * A request on its way through the relay: a client's (to an upstream, or answered by the proxy) or an upstream's (to
 * a client). Interceptors read it, route it (`to`) and replace its frame; the terminal sends it on.
 */
export class Call {
  /** The request as it goes on (frames are immutable: an interceptor that changes it sets a new one). */
  frame: Frame;
  /** Where it goes; set by routing. */
  to?: Party;
  /** The name it is reported under (metrics, audit): the server and the tool, prompt or resource. */
  report?: { server: string; tool: string };
  /** Progress of the call for the one who asked (set when the asker gave a progress token). */
  progress?: (params: Record<string, unknown>) => void;
  /** The request's span, when tracing is on (set by the tracing interceptor; the terminal, pipeline add children). */
  trace?: RequestTrace;
  /** The HTTP request's headers, for a client request that came over HTTP (its trace context may be there). */
  headers?: FrameContext['headers'];
  /** What interceptors/results.ts callInfo made of the call, and of which frame and report it made it. */
  info?: { readonly frame: Frame; readonly report?: Call['report']; readonly info: CallInfo };
  /** The answer as the upstream sent it (set by the terminal), before the pipeline and the eras changed it. */
  upstreamAnswer?: Frame;
  /** Ends the asker's stream of this request for now, to be resumed (set where the asker's wire can: Wire.pause). */
  pause?: (retryMs: number | undefined, resume?: () => void) => void;
  /** Cancelled when the asker cancels the request or goes away (what the call's own requests listen to). */
  readonly cancellation = new Cancellation();
  /** What runs once the call is over (see `afterAnswer`). */
  private finishers?: Array<(answer: Frame | undefined) => void>;

  constructor(
    readonly received: Frame,
    readonly from: Party,
    /** Who asks: a client request's own envelope, or what its client said in `initialize`; empty for an upstream's. */
    readonly envelope: RequestEnvelope,
  ) {
    this.frame = received;
  }

  get method(): string {
    return this.frame.method ?? '';
  }

  get params(): Record<string, unknown> {
    return this.frame.params;
  }

  /** A client's request (not an upstream's). */
  get fromClient(): boolean {
    return this.from.side === 'client';
  }

  /** The client side of the call: the asker of a client request, the asked one of an upstream's (once routed). */
  get session(): Session | undefined {
    if (this.from.side === 'client') return this.from;
    return this.to?.side === 'client' ? this.to : undefined;
  }

  /** The upstream side: the one asked by a client request (once routed), or the asker of an upstream's. */
  get upstream(): Upstream | undefined {
    if (this.from.side === 'server') return this.from;
    return this.to?.side === 'server' ? this.to : undefined;
  }

  /** A client's request from a host of MCP Apps (client-capabilities.ts), by what this request's client declared. */
  get hostsApps(): boolean {
    return this.fromClient && hostsApps(this.envelope.clientCapabilities);
  }

  /**
   * Runs `finish` once the call is over, right after its answer was handed to the asker's wire (the frame the asker
   * got, an error frame for a failure), or with undefined when it was cancelled and not answered. For what only
   * watches a call (counting, metrics, the audit log): done then, it does not hold the answer up.
   */
  afterAnswer(finish: (answer: Frame | undefined) => void): void {
    (this.finishers ??= []).push(finish);
  }

  /**
   * The call is over (the dispatcher, once the answer is on its way): see `afterAnswer`. What a finisher throws goes
   * to `failed`, and the finishers after it still run (the in-flight count must end whatever the report does).
   */
  finished(answer: Frame | undefined, failed: (error: unknown) => void): void {
    const finishers = this.finishers;
    if (!finishers) return;
    this.finishers = undefined;
    for (const finish of finishers) {
      try {
        finish(answer);
      } catch (error) {
        failed(error);
      }
    }
  }

  cancel(reason: unknown): void {
    this.cancellation.cancel(reason);
  }

  /**
   * The same call under another signal (and progress sink): for a call that outlives the request that started it
   * (a 2026-07-28 client's call held between its requests by the input bridge).
   */
  fork(signal: Signal, progress?: (params: Record<string, unknown>) => void): Call {
    const forked = new Call(this.received, this.from, this.envelope);
    forked.frame = this.frame;
    forked.to = this.to;
    forked.report = this.report;
    if (this.trace) forked.trace = this.trace;
    if (this.pause) forked.pause = this.pause;
    if (progress) forked.progress = progress;
    if (signal.aborted) forked.cancel(signal.reason);
    else onAbort(signal, () => forked.cancel(signal.reason));
    return forked;
  }
}
