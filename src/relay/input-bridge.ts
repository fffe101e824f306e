import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { Call } from './call.js';
import { Cancellation, onAbort, type Signal } from '../rpc/cancellation.js';
import { CancelledError, Codes, RpcError } from '../rpc/errors.js';
import type { Upstream } from '../upstreams/upstream.js';
import { Frame } from '../wire/frame.js';
import { textOf } from '../wire/json.js';
import { unsupportedByClient } from './client-capabilities.js';

/** The wire message the SDK gives for a refused requestState; the proxy answers alike. */
const INVALID_STATE = 'Invalid or expired requestState';

/** Runs the upstream call: with the bridge's signal (it may outlive the request that started it) and progress sink. */
export type UpstreamRun = (signal: Signal, onprogress: (params: Record<string, unknown>) => void) => Promise<Frame>;

/** A call of a modern client in flight that a question of its upstream can be put to. */
export interface Asked {
  /** Who may resume it: the owner of the session that started it. */
  readonly binding: string;
  /** Puts the question (an upstream's request frame) to the client; resolves with its answer as a result frame. */
  ask(question: Frame, signal: Signal): Promise<Frame>;
}

/** One question of a legacy upstream, waiting for the modern client's answer. */
interface Ask {
  key: string;
  method: string;
  params?: Record<string, unknown>;
  /** Sent to the client in an input_required result and not answered since. */
  shown: boolean;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * A legacy upstream's call made by a modern client. While the client is between two of its requests (after an
 * input_required answer, before its retry) the call is held: the upstream goes on waiting for the answers to its
 * questions, and the call ends (cancelled upstream) when the client has not come back within the hold time.
 */
class BridgedCall implements Asked {
  readonly id = randomUUID();
  private readonly cancellation = new Cancellation();
  private readonly asks: Ask[] = [];
  private nextKey = 1;
  private outcome?: { answer: Frame } | { error: unknown };
  private wake?: () => void;
  /** The client's request the call answers now; none while held. */
  private attached?: Call;
  private expiry?: NodeJS.Timeout;

  constructor(
    readonly upstream: Upstream,
    /** Who may resume it: the owner of the session that started it. */
    readonly binding: string,
    /** The method and tool, prompt or resource, which a retry must name again. */
    readonly target: string,
    readonly capabilities: ClientCapabilities | undefined,
    private readonly holdMs: number,
    run: UpstreamRun,
    private readonly ended: (call: BridgedCall) => void,
  ) {
    run(this.cancellation, (params) => this.progress(params)).then(
      (answer) => this.settle({ answer }),
      (error: unknown) => this.settle({ error }),
    );
  }

  get settled(): boolean {
    return this.outcome !== undefined;
  }

  /** A question from the upstream: answered when the client retries with its answer. */
  ask(question: Frame, signal: Signal): Promise<Frame> {
    const method = question.method ?? '';
    if (!EMBEDDABLE.has(method)) {
      return Promise.reject(
        new RpcError(
          Codes.MethodNotFound,
          `mcp-offload cannot pass ${method} from upstream "${this.upstream.name}" on to its MCP client: the client speaks MCP 2026-07-28, which asks a client only for elicitation, sampling and roots`,
        ),
      );
    }
    const unsupported = unsupportedByClient(this.capabilities, method, question.params, this.upstream.name);
    if (unsupported) return Promise.reject(unsupported);
    // Restored: the question reaches the client inside another message, the call's input_required result.
    const params = question.blobs.restore(question.message.params);
    return new Promise<Frame>((resolve, reject) => {
      const ask: Ask = {
        key: `${keyword(method)}-${this.nextKey++}`,
        method,
        ...(params !== undefined ? { params } : {}),
        shown: false,
        resolve: (result) => resolve(Frame.result(question.id ?? null, result as Record<string, unknown>)),
        reject,
      };
      this.asks.push(ask);
      onAbort(signal, () => {
        this.drop(ask);
        reject(new CancelledError(`upstream "${this.upstream.name}" withdrew ${method}`));
      });
      this.poke();
    });
  }

  /**
   * Serves one request of the client: answers the questions it brought answers to, then waits for the call's
   * result or the upstream's next questions, whichever comes first.
   */
  async serve(call: Call, seal: (bridged: BridgedCall) => string): Promise<Frame> {
    this.attach(call);
    const { cancellation } = call;
    try {
      // Restored: each answer goes upstream in a message of its own, not in this request's frame.
      this.answer(call.frame.blobs.restore(call.params.inputResponses) as Record<string, unknown> | undefined);
      for (;;) {
        if (this.outcome) {
          this.finish();
          if ('error' in this.outcome) throw this.outcome.error;
          return this.outcome.answer;
        }
        const waiting = this.asks.filter((ask) => !ask.shown);
        if (waiting.length > 0) {
          for (const ask of waiting) ask.shown = true;
          this.hold();
          return Frame.result(call.received.id ?? null, this.inputRequired(waiting, seal(this)));
        }
        let stopListening: (() => void) | undefined;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          stopListening = cancellation.listen(resolve);
        });
        stopListening?.();
        this.wake = undefined;
        if (cancellation.aborted) {
          this.cancel(`the MCP client cancelled ${call.method}`);
          throw new CancelledError(`the MCP client cancelled ${call.method}`);
        }
      }
    } finally {
      if (this.attached === call) this.attached = undefined;
    }
  }

  /** Ends the call: cancelled upstream, its open questions refused. */
  cancel(reason: string): void {
    clearTimeout(this.expiry);
    this.cancellation.cancel(reason);
    for (const ask of this.asks.splice(0)) ask.reject(new CancelledError(reason));
    // A result that came while the call was held, and that nobody will now take.
    if (this.outcome && 'answer' in this.outcome) this.outcome.answer.blobs.dispose();
    this.ended(this);
  }

  private attach(call: Call): void {
    clearTimeout(this.expiry);
    this.expiry = undefined;
    this.attached = call;
    // The client's request is served by the upstream (its log messages, its questions find the session).
    call.to = this.upstream;
    // Questions shown before and not answered in this retry are asked again.
    for (const ask of this.asks) ask.shown = false;
  }

  /** Waits for the client's retry, at most `holdMs` (set by the bridge). */
  private hold(): void {
    this.attached = undefined;
    this.expiry = setTimeout(
      () => this.cancel(`the MCP client did not come back to ${this.target} within the hold time`),
      this.holdMs,
    );
    this.expiry.unref();
  }

  private answer(responses: Record<string, unknown> | undefined): void {
    if (!responses || typeof responses !== 'object') return;
    for (const ask of [...this.asks]) {
      if (!Object.hasOwn(responses, ask.key)) continue;
      this.drop(ask);
      ask.resolve(responses[ask.key]);
    }
  }

  private inputRequired(asks: Ask[], requestState: string): Record<string, unknown> {
    const inputRequests: Record<string, unknown> = {};
    for (const ask of asks) inputRequests[ask.key] = embedded(ask);
    return { resultType: 'input_required', inputRequests, requestState };
  }

  private progress(params: Record<string, unknown>): void {
    this.attached?.progress?.(params);
  }

  private settle(outcome: { answer: Frame } | { error: unknown }): void {
    this.outcome = outcome;
    // A result that comes while the call is held waits for the client's retry, within the same hold time.
    this.poke();
  }

  private finish(): void {
    clearTimeout(this.expiry);
    this.ended(this);
  }

  private drop(ask: Ask): void {
    const at = this.asks.indexOf(ask);
    if (at !== -1) this.asks.splice(at, 1);
  }

  private poke(): void {
    this.wake?.();
  }
}

/**
 * Bridges a legacy upstream's questions (elicitation, sampling, roots) to a modern client, which can be asked
 * something only in a call's result: the question becomes an `input_required` result whose `requestState` names the
 * upstream call, held open meanwhile; the client's retry carries the answers, which go to the upstream, and the
 * retry waits for the call's next question or its result. The requestState is sealed (HMAC with a key of this
 * process, bound to the call and an expiry): a state the proxy did not make, or made for another call, is refused.
 * Held calls live in this process.
 */
export class InputBridge {
  private key: Buffer = randomBytes(32);
  /**
   * What marks a requestState as this process's own; any other (a modern server's, or another mcp-offload's in
   * front of a legacy server) is passed on untouched.
   */
  private prefix = `mcp-offload.${randomBytes(6).toString('base64url')}.`;
  private readonly calls = new Map<string, BridgedCall>();
  /** With redis: this replica's id, sealed into every state so another replica knows where the call is held. */
  private replica?: string;

  constructor(
    private readonly holdMs: number,
    private readonly log: Logger,
  ) {}

  /**
   * Seals with a key the replicas share (src/shared/shared-secrets.ts), and marks states with a prefix derived from
   * it, so every replica recognizes and verifies a state another one made. The call it names is still held by the
   * replica that made it: another replica answers it as a state that names no held call.
   */
  shareKey(key: Buffer, replica: string): void {
    this.key = key;
    this.prefix = `mcp-offload.${this.mac('requestState prefix').slice(0, 8)}.`;
    this.replica = replica;
  }

  /**
   * The replica holding the call a valid, unexpired state names, when that is another replica (which then gets the
   * client's retry: src/http/mcp-endpoints.ts); undefined for anything else.
   */
  holderElsewhere(state: unknown): string | undefined {
    if (!this.owns(state) || this.replica === undefined) return undefined;
    const holder = this.verified(state)?.r;
    return typeof holder === 'string' && holder !== this.replica ? holder : undefined;
  }

  /** Whether `state` is one the proxy made (else it is a modern upstream's, passed on as it came). */
  owns(state: unknown): state is string {
    return typeof state === 'string' && state.startsWith(this.prefix);
  }

  /**
   * Refuses retry fields a legacy upstream cannot have asked for: it makes no requestState, so one that is not the
   * proxy's is not for it (a modern upstream's is passed on).
   */
  checkRetry(call: Call, upstream: Upstream, state: unknown): void {
    if (state === undefined || upstream.era !== 'legacy') return;
    this.log.debug({ session: call.session?.id, server: upstream.name }, 'refused a requestState for a legacy server');
    throw new RpcError(Codes.InvalidParams, INVALID_STATE, { reason: 'invalid_request_state' });
  }

  /** Starts a modern client's call on an upstream and serves its first request. */
  start(call: Call, upstream: Upstream, run: UpstreamRun): Promise<Frame> {
    const bridged = new BridgedCall(
      upstream,
      call.session!.owner,
      targetOf(call),
      call.envelope.clientCapabilities,
      this.holdMs,
      run,
      (ended) => this.calls.delete(ended.id),
    );
    this.calls.set(bridged.id, bridged);
    return bridged.serve(call, (c) => this.seal(c));
  }

  /** A client's retry with the answers to a held call's questions. */
  resume(call: Call, state: string): Promise<Frame> {
    const bridged = this.open(state);
    if (!bridged || bridged.binding !== call.session!.owner || bridged.target !== targetOf(call)) {
      this.log.debug({ session: call.session?.id }, 'refused a requestState that names no held call of this client');
      throw new RpcError(Codes.InvalidParams, INVALID_STATE, { reason: 'invalid_request_state' });
    }
    return bridged.serve(call, (c) => this.seal(c));
  }

  /** The modern clients' calls in flight on this connection, oldest first. */
  callsOn(upstream: Upstream): Asked[] {
    return [...this.calls.values()].filter((call) => call.upstream === upstream && !call.settled);
  }

  /** Cancels every held call (shutdown). */
  stop(): void {
    for (const call of [...this.calls.values()]) call.cancel('mcp-offload is shutting down');
  }

  private seal(call: BridgedCall): string {
    const sealed = { c: call.id, e: Date.now() + this.holdMs, ...(this.replica ? { r: this.replica } : {}) };
    const payload = Buffer.from(JSON.stringify(sealed)).toString('base64url');
    return `${this.prefix}${payload}.${this.mac(payload)}`;
  }

  private open(state: string): BridgedCall | undefined {
    const c = this.verified(state)?.c;
    return typeof c === 'string' ? this.calls.get(c) : undefined;
  }

  /** What a state of this proxy's (or of a replica sharing its key) holds, if its MAC is right and it is unexpired. */
  private verified(state: string): { c?: unknown; r?: unknown } | undefined {
    const [payload, mac] = state.slice(this.prefix.length).split('.');
    if (!payload || !mac) return undefined;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const sealed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        c?: unknown;
        e?: unknown;
        r?: unknown;
      };
      return typeof sealed.e === 'number' && sealed.e >= Date.now() ? sealed : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

export type { BridgedCall };

/** The call a request makes: its method and what it names (a retry must be the same call). */
function targetOf(call: Call): string {
  const params = call.received.params as { name?: unknown; uri?: unknown };
  return `${call.method} ${textOf(params.name ?? params.uri ?? '')}`;
}

/** The questions the 2026 wire can embed in an input_required result, and the key prefix of each. */
const EMBEDDABLE = new Map([
  ['elicitation/create', 'elicitation'],
  ['sampling/createMessage', 'sampling'],
  ['roots/list', 'roots'],
]);

function keyword(method: string): string {
  return EMBEDDABLE.get(method) ?? 'input';
}

/**
 * A question as an embedded input request of the 2026 wire: the 2025 URL-mode `elicitationId` is not part of it
 * (the completion notification that refers to it has no 2026 counterpart).
 */
function embedded(ask: Ask): { method: string; params?: Record<string, unknown> } {
  if (!ask.params) return { method: ask.method };
  if (ask.method === 'elicitation/create' && ask.params.mode === 'url') {
    const { elicitationId: _dropped, ...params } = ask.params;
    return { method: ask.method, params };
  }
  return { method: ask.method, params: ask.params };
}
