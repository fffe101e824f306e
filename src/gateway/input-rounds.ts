import { randomUUID } from 'node:crypto';
import type { JSONRPCRequest, Result } from '@modelcontextprotocol/server';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { sendRawRequest } from '../protocol/raw-messages.js';
import { Blobs } from '../transports/blob-set.js';
import { ClientError, forwardedError } from '../upstreams/errors.js';
import type { UpstreamReply } from '../upstreams/upstream.js';
import { clientSupports } from './client-capabilities.js';
import type { RequestContext } from './context.js';

/** Rounds of questions one call may take before the proxy gives up on it (a server that never stops asking). */
const MAX_ROUNDS = 16;

/** How long a request to the client (a user answering, a model sampling) may take. */
const QUESTION_TIMEOUT_MS = 30 * 60_000;

/** A round with nothing to ask, only state to echo, is paced so a server cannot make the proxy spin. */
const STATE_ONLY_PACING_MS = 50;

/** The retry fields of the 2026 wire, sent back to the upstream with the original request's params. */
export interface RetryMaterial {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

export function isInputRequired(result: Result): boolean {
  return (result as { resultType?: unknown }).resultType === 'input_required';
}

/**
 * A modern upstream asked a legacy client something (an `input_required` result): every embedded request goes to the
 * client as the real server→client request of its era, and the call is sent again with the answers
 * (`inputResponses`) and the server's `requestState` exactly as it came, until the server gives its result. The
 * SDK's own legacy shim does this for handlers it wraps; the proxy's relay handler is not one of them.
 */
export async function fulfilInputRounds(
  context: RequestContext,
  first: UpstreamReply,
  retry: (material: RetryMaterial) => Promise<UpstreamReply>,
): Promise<UpstreamReply> {
  const { method } = context.request;
  let reply = first;
  for (let round = 1; isInputRequired(reply.result); round++) {
    reply.blobs.dispose();
    if (round > MAX_ROUNDS)
      return failure(method, `the server asked for input more than ${MAX_ROUNDS} times in one call`);
    const { inputRequests, requestState } = reply.result as {
      inputRequests?: Record<string, { method?: unknown; params?: Record<string, unknown> }> | null;
      requestState?: unknown;
    };
    const asked = Object.entries(inputRequests ?? {});
    for (const [key, entry] of asked) {
      const missing =
        typeof entry?.method === 'string'
          ? clientSupports(context.session.clientCapabilities, entry as JSONRPCRequest)
          : 'an input request without a method';
      if (missing) {
        return failure(
          method,
          `the server asked for input "${key}" (${String(entry?.method)}), but the MCP client connected to mcp-offload does not support ${missing}`,
        );
      }
    }
    let inputResponses: Record<string, unknown> | undefined;
    if (asked.length > 0) {
      try {
        const ask = async ([key, entry]: (typeof asked)[number]) =>
          [key, await askClient(context, String(entry.method), entry.params)] as const;
        const answers = await Promise.all(asked.map(ask));
        inputResponses = Object.fromEntries(answers);
      } catch (error) {
        if (context.extra.mcpReq.signal.aborted) throw error;
        const relayed = forwardedError(error);
        const why = relayed instanceof Error ? relayed.message : String(relayed);
        return failure(method, `asking the MCP client for the input the server needs failed: ${why}`);
      }
    } else {
      await new Promise((resolve) => setTimeout(resolve, STATE_ONLY_PACING_MS));
    }
    reply = await retry({
      ...(inputResponses ? { inputResponses } : {}),
      ...(typeof requestState === 'string' ? { requestState } : {}),
    });
  }
  return reply;
}

/** One embedded request, asked as the 2025 server→client request it is (URL mode needs an elicitationId there). */
function askClient(context: RequestContext, method: string, params?: Record<string, unknown>): Promise<Result> {
  let sent = params;
  if (method === 'elicitation/create' && params?.mode === 'url' && params.elicitationId === undefined) {
    sent = { ...params, elicitationId: randomUUID() };
  }
  return sendRawRequest(
    context.session.server,
    { method, ...(sent !== undefined ? { params: sent } : {}) },
    { signal: context.extra.mcpReq.signal, relatedRequestId: context.request.id, timeout: QUESTION_TIMEOUT_MS },
  );
}

/** As the SDK's shim reports it: a tool call fails as a tool result, a prompt or a read as an error. */
function failure(method: string, message: string): UpstreamReply {
  if (method === 'tools/call') {
    return {
      result: { content: [{ type: 'text', text: `mcp-offload: ${message}` }], isError: true },
      blobs: Blobs.NONE,
    };
  }
  throw new ClientError(ProtocolErrorCode.InternalError, `mcp-offload: ${message}`);
}
