import { randomUUID } from 'node:crypto';
import { clientSupports, unsupportedByClient } from '../client-capabilities.js';
import { Frame } from '../../wire/frame.js';
import type { Call } from '../call.js';
import type { Interceptor, Next } from '../chain.js';
import type { RelayContext } from '../context.js';
import { Codes, RpcError } from '../../rpc/errors.js';
import { isInputRequired } from '../results.js';

/** The requests a server may answer with input_required (2026-07-28, multi round-trip requests). */
const MULTI_ROUND = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Rounds of questions one call may take before the proxy gives up on it (a server that never stops asking). */
const MAX_ROUNDS = 16;

/** How long a request to the client (a user answering, a model sampling) may take. */
const QUESTION_TIMEOUT_MS = 30 * 60_000;

/** A round with nothing to ask, only state to echo, is paced so a server cannot make the proxy spin. */
const STATE_ONLY_PACING_MS = 50;

/**
 * Where the two eras meet in a call. A 2026-07-28 server asks its client things in its result (input_required), a
 * 2025 server with requests of its own during the call; each client hears questions its own way:
 * - a 2026-07-28 client's call to a legacy upstream is held by the input bridge (gateway/input-bridge.ts): a question
 *   the upstream asks during it becomes an input_required answer, and the client's retry brings the answer back;
 * - a 2025 client's call to a 2026-07-28 upstream that answers input_required has each embedded request asked as the
 *   real request of the 2025 era, and is sent again with the answers, until the server gives its result.
 * Same-era calls pass as they are. (Envelopes are the upstream's business: Upstream.send; result shapes the
 * client's: handshake.ts.)
 */
export function eras(context: RelayContext): Interceptor {
  return {
    name: 'eras',
    takes: (method, fromClient) => fromClient && MULTI_ROUND.has(method),
    // Not async: a same-era call passes with no turn of its own (chain.ts).
    request(call, next) {
      const upstream = call.upstream;
      if (!upstream) return next(call);
      const session = call.session!;
      if (session.era === 'modern') {
        const state = call.params.requestState;
        const { bridge } = context;
        if (bridge.owns(state)) return bridge.resume(call, state);
        if (upstream.era === 'modern') return next(call);
        bridge.checkRetry(call, upstream, state);
        // The upstream's call may outlive this request: it runs with the bridge's signal, not the request's. Its
        // progress is asked for when the request that starts it asks (a retry's token then gets it too); a progress
        // token on every call would be an edit of every request's bytes.
        const asked = call.progress !== undefined;
        return bridge.start(call, upstream, (signal, onprogress) =>
          next(call.fork(signal, asked ? onprogress : undefined)),
        );
      }
      return next(call).then((answer) => {
        const result = answer.message.result;
        return result && isInputRequired(result) ? inputRounds(call, next, answer) : answer;
      });
    },
  };
}

/**
 * The question of an upstream, asked during a 2026-07-28 client's call that the input bridge holds: it goes into
 * that call (the client sees it in the call's input_required answer). Undefined when no such call is in flight on
 * the upstream's connection, or a 2025 client's call is too (routing decides then). Calls of several clients make
 * the question unattributable, and the upstream is told so.
 */
export function bridgedQuestion(context: RelayContext, call: Call): Promise<Frame> | undefined {
  const upstream = call.upstream!;
  if (context.ownerOf(upstream)) return undefined;
  const calls = context.bridge.callsOn(upstream);
  if (calls.length === 0) return undefined;
  for (const session of context.sessions)
    if (session.era !== 'modern' && session.requestServedBy(upstream) !== undefined) return undefined;
  if (new Set(calls.map((asked) => asked.binding)).size > 1) {
    return Promise.reject(
      new RpcError(
        Codes.InvalidRequest,
        `mcp-offload cannot tell which client ${call.method} is for: upstream "${upstream.name}" serves calls of ${calls.length} MCP 2026-07-28 clients on one shared connection`,
      ),
    );
  }
  return calls[calls.length - 1]!.ask(call.frame, call.cancellation);
}

/**
 * A modern upstream asked a legacy client something (an `input_required` result): every embedded request goes to the
 * client as the real server→client request of its era, and the call is sent again with the answers
 * (`inputResponses`) and the server's `requestState` exactly as it came, until the server gives its result.
 */
async function inputRounds(call: Call, next: Next, first: Frame): Promise<Frame> {
  const session = call.session!;
  let answer = first;
  for (let round = 1; isInputRequired(answer.message.result ?? {}); round++) {
    if (round > MAX_ROUNDS)
      return failure(call, `the server asked for input more than ${MAX_ROUNDS} times in one call`);
    // Restored: the requests go to the client in messages of their own, which carry no long literal of this answer.
    const { inputRequests, requestState } = answer.blobs.restore(answer.message.result) as {
      inputRequests?: Record<string, { method?: unknown; params?: Record<string, unknown> }> | null;
      requestState?: unknown;
    };
    const asked = Object.entries(inputRequests ?? {});
    for (const [key, entry] of asked) {
      const missing =
        typeof entry?.method === 'string'
          ? clientSupports(session.clientCapabilities, entry.method, entry.params)
          : 'an input request without a method';
      if (missing) {
        return failure(
          call,
          `the server asked for input "${key}" (${String(entry?.method)}), but the MCP client connected to mcp-offload does not support ${missing}`,
        );
      }
    }
    let inputResponses: Record<string, unknown> | undefined;
    if (asked.length > 0) {
      const answers = await Promise.all(asked.map(([, entry]) => askClient(call, String(entry.method), entry.params)));
      const refused = answers.find((reply) => reply.isError);
      if (refused) {
        if (call.cancellation.aborted) throw new RpcError(Codes.ConnectionClosed, 'cancelled');
        return failure(
          call,
          `asking the MCP client for the input the server needs failed: ${refused.message.error?.message}`,
        );
      }
      inputResponses = Object.fromEntries(
        asked.map(([key], i) => [key, answers[i]!.blobs.restore(answers[i]!.message.result)]),
      );
    } else {
      await new Promise((resolve) => setTimeout(resolve, STATE_ONLY_PACING_MS));
    }
    call.frame = call.frame
      .with(['params', 'inputResponses'], inputResponses)
      .with(['params', 'requestState'], typeof requestState === 'string' ? requestState : undefined);
    answer = await next(call);
  }
  return answer;
}

/** One embedded request, asked as the 2025 server→client request it is (URL mode needs an elicitationId there). */
function askClient(call: Call, method: string, params?: Record<string, unknown>): Promise<Frame> {
  let sent = params;
  if (method === 'elicitation/create' && params?.mode === 'url' && params.elicitationId === undefined) {
    sent = { ...params, elicitationId: randomUUID() };
  }
  const unsupported = unsupportedByClient(call.session!.clientCapabilities, method, sent, call.upstream!.name);
  if (unsupported) return Promise.resolve(Frame.error(null, unsupported.toWire()));
  return call.session!.ask(Frame.request(0, method, sent), {
    signal: call.cancellation,
    timeoutMs: QUESTION_TIMEOUT_MS,
    send: { related: call.received.id! },
  });
}

/** As the SDK's shim reports it: a tool call fails as a tool result, a prompt or a read as an error. */
function failure(call: Call, message: string): Frame {
  if (call.method === 'tools/call') {
    return Frame.result(call.received.id ?? null, {
      content: [{ type: 'text', text: `mcp-offload: ${message}` }],
      isError: true,
    });
  }
  throw new RpcError(Codes.InternalError, `mcp-offload: ${message}`);
}
