import type { CallToolResult, JSONRPCRequest, Result } from '@modelcontextprotocol/server';
import { ARTIFACTS_META_KEY } from '../pipeline/pipeline.js';
import type { CallInfo } from '../pipeline/types.js';
import type { Blobs } from '../transports/blob-set.js';
import { envelopeFrom, type RequestEnvelope } from './envelope.js';
import { artifactsOf, type CallOutcome, type GatewayEvents } from './events.js';
import type { InFlight } from './inflight.js';
import { isInputRequired } from './input-rounds.js';
import type { InputBridge, LaneHold } from './input-bridge.js';
import type { Offload } from './offload.js';
import type { DownstreamSession } from './session.js';

/** How a call ends for the client: the result to send, or the error to answer with. */
export type LaneAnswer = { result: Result } | { error: Error };

/** Stops a call the lane took: the upstream is told, and the client gets no answer. */
export type LaneCancel = (reason: unknown) => void;

export interface LaneDeps {
  offload: Offload;
  events: GatewayEvents;
  inflight: InFlight;
  /** Where a 2026-07-28 client's call goes when the upstream asks a question during it (input-bridge.ts). */
  bridge: InputBridge;
}

/**
 * The relay lane: the `tools/call` handler (handlers.ts) for the calls where most of its steps do nothing, written
 * as one callback chain instead of a dozen async layers, each a few microseconds and a few allocations per call
 * (docs/performance.md, issue #13 item 5). It takes a call served past the SDK (fast-path/lean-dispatch.ts,
 * http/lean-post.ts, http/lean-modern-post.ts) that goes to an upstream whose requests skip the SDK client (a
 * legacy-era one, or for a 2026-07-28 client a 2026-07-28 one too, whose input_required answers pass on as they came),
 * carries no client progress token (the handler orders progress before the result) and no 2025 task, to a tool that
 * is not the proxy's own, with arguments holding no artifact URI to restore; a 2026-07-28 client's call, when it asks
 * for no log messages (which it hears only on the call's own stream). Everything else takes the handler.
 *
 * A 2026-07-28 client's call is known to the input bridge while it runs (InputBridge.lane): a question the upstream
 * asks during it answers the client's request with input_required, as the handler's bridged call does, and the
 * bridge then holds the call for the client's retry, which the handler serves.
 *
 * What the handler does, it does: the upstream gets the call under the tool's own name with the proxy's progress
 * token and timeout (Upstream.relayCall), the result goes through the pipeline unless the pipeline certainly returns
 * it as it is, payloads kept as bytes are delivered and let go, the call is reported (metrics, audit), counted in
 * flight for a graceful shutdown, known as the upstream's current call for its questions to the client, and new
 * artifacts announce a resource list change.
 */
export function relayLane(deps: LaneDeps) {
  const { offload, events, inflight, bridge } = deps;
  return (
    session: DownstreamSession,
    request: JSONRPCRequest,
    answer: (answer: LaneAnswer) => void,
    envelope?: Record<string, unknown>,
  ): LaneCancel | undefined => {
    if (request.method !== 'tools/call') return undefined;
    const params = request.params as Record<string, unknown>;
    const meta = params._meta as { progressToken?: unknown } | undefined;
    if ('task' in params || meta?.progressToken !== undefined) return undefined;
    let asking: RequestEnvelope | undefined;
    if (session.era === 'modern') {
      if (!envelope) return undefined;
      asking = envelopeFrom(envelope);
      // A 2026-07-28 client hears log messages only on the stream of a call that asked for them: the handler's.
      if (asking.logLevel !== undefined) return undefined;
    }
    const name = String(params.name);
    if (offload.isBuiltin(name)) return undefined;
    const route = session.view.catalog.tool(name);
    if (!route) return undefined;
    const { upstream } = route;
    // A legacy client is asked a 2026-07-28 server's questions as real requests, by the handler (input-rounds.ts).
    const modernUpstream = upstream.era === 'modern';
    if (modernUpstream && session.era !== 'modern') return undefined;
    const call: CallInfo = {
      server: upstream.name,
      tool: route.original,
      args: params.arguments as Record<string, unknown> | undefined,
      owner: session.owner,
      links: session.identity.links,
      client: asking?.clientInfo ?? session.clientInfo,
    };
    if (!offload.argumentsAsSent(call)) return undefined;

    const end = inflight.begin();
    const report = callReport(events, session, call.server, call.tool);
    // The answer is written first and the call's bookkeeping follows it, off the client's wait.
    const failed = (error: Error) => {
      answer({ error });
      report('failed');
      end();
    };
    const deliver = (processed: Result, blobs: Blobs) => {
      const result = blobs.deliver(processed);
      blobs.dispose();
      announceArtifacts(session, offload, result);
      answer({ result });
      // A request for input is no result yet: the call is reported once done, by the handler serving its retry.
      if (!isInputRequired(result)) report((result as CallToolResult).isError ? 'error' : 'ok', result);
      end();
    };

    let held: LaneHold | undefined;
    const cancel = upstream.relayCall(
      { ...params, name: route.original },
      (outcome) => {
        if (held?.took(outcome)) return;
        session.served(request.id);
        if ('error' in outcome) return failed(outcome.error);
        const { result, blobs } = outcome;
        if (!isToolResult(result) || offload.passesUnchanged(result, call, blobs)) return deliver(result, blobs);
        offload.processResult(result, call, blobs).then(
          (processed) => deliver(processed, blobs),
          (error: unknown) => {
            blobs.dispose();
            failed(error instanceof Error ? error : new Error(String(error)));
          },
        );
      },
      asking,
    );
    if (!cancel) {
      end();
      return undefined;
    }
    if (asking && !modernUpstream) {
      // A question of the (legacy-era) upstream answers the client's request with input_required; the call's end is
      // reported when the client's retry gets it (as the handler does).
      const asked = (result: Result) => {
        session.served(request.id);
        answer({ result });
        end();
      };
      held = bridge.lane(session.owner, upstream, `tools/call ${name}`, asking.clientCapabilities, asked, cancel);
    }
    session.serving(request.id, upstream);
    return (reason) => {
      if (!cancel(reason)) return;
      held?.drop();
      session.served(request.id);
      report('failed');
      end();
    };
  };
}

export type RelayLane = ReturnType<typeof relayLane>;

const unheard = () => undefined;

/** Reports a call's end (metrics, audit), timed from now. */
export function callReport(
  events: GatewayEvents,
  session: DownstreamSession,
  server: string,
  tool: string,
): (outcome: CallOutcome, result?: Result) => void {
  if (!events.heard('call')) return unheard;
  const started = performance.now();
  return (outcome, result) =>
    events.emit('call', {
      who: session.who,
      server,
      tool,
      outcome,
      seconds: (performance.now() - started) / 1000,
      artifacts: artifactsOf(result),
    });
}

/** New artifacts are new resources of the session. */
export function announceArtifacts(session: DownstreamSession, offload: Offload, result: Result): void {
  if (result._meta?.[ARTIFACTS_META_KEY] && offload.offersResources) {
    void session.notify({ method: 'notifications/resources/list_changed' });
  }
}

/** A tools/call result (content blocks), as opposed to a task handle or a request for input. */
export function isToolResult(result: Result): result is CallToolResult {
  return Array.isArray((result as { content?: unknown }).content);
}
