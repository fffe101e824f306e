import type {
  AuthInfo,
  Implementation,
  JSONRPCMessage,
  JSONRPCRequest,
  Notification,
  NotificationOptions,
  Request,
  RequestId,
  RequestOptions,
  Result,
  ServerContext,
} from '@modelcontextprotocol/server';
import { encodeModernCallResult, encodeModernErrorCode } from './modern-wire.js';

// A call served past the SDK's server (lean-dispatch.ts over stdio and a legacy HTTP session, http/lean-modern-post.ts
// for a 2026-07-28 POST): the context the SDK would hand the handler, and the answer as the SDK would write it.

/** Where a lean call's requests and notifications to its client go: the session's Server, or the call's own POST. */
export interface LeanCallWire {
  send(request: Request, schemaOrOptions?: unknown, maybeOptions?: RequestOptions): Promise<unknown>;
  notify(notification: Notification, options?: NotificationOptions): Promise<void>;
}

export interface LeanCall {
  request: JSONRPCRequest;
  signal: AbortSignal;
  wire: LeanCallWire;
  /** A 2026-07-28 call's per-request envelope, as the SDK lifts it out of `_meta` (modern-wire.ts). */
  envelope?: Record<string, unknown>;
  sessionId?: string;
  authInfo?: AuthInfo;
}

const noRequestState = () => undefined;

/**
 * What the proxy's handlers use of the context the SDK would build (its log, elicitInput and requestSampling helpers
 * are for servers that answer themselves; a relay asks through the upstream's requests instead).
 */
export function leanContext(call: LeanCall): ServerContext {
  const { request, envelope, authInfo } = call;
  return {
    sessionId: call.sessionId,
    mcpReq: {
      id: request.id,
      method: request.method,
      _meta: request.params?._meta,
      ...(envelope ? { envelope } : {}),
      requestState: noRequestState,
      signal: call.signal,
      send: call.wire.send,
      notify: call.wire.notify,
    },
    ...(authInfo ? { http: { authInfo } } : {}),
  } as unknown as ServerContext;
}

/**
 * The answer to request `id` as the SDK writes one: the result as it is, an error by its code, message and data; for
 * a 2026-07-28 call (`modern`) both encoded as that revision's codec encodes them, the server's identity included.
 */
export function answerMessage(
  id: RequestId,
  answer: { result: Result } | { error: unknown },
  modern?: { serverInfo: Implementation | undefined },
): JSONRPCMessage {
  if ('result' in answer) {
    const result = modern ? encodeModernCallResult(answer.result, modern.serverInfo) : answer.result;
    return { result, jsonrpc: '2.0', id };
  }
  const error = answer.error as { code?: unknown; message?: string; data?: unknown } | undefined;
  const thrown = Number.isSafeInteger(error?.code) ? (error!.code as number) : -32603;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: modern ? encodeModernErrorCode(thrown) : thrown,
      message: error?.message ?? 'Internal error',
      ...(error?.data !== undefined ? { data: error.data } : {}),
    },
  };
}
