import { ATTR } from '../tracing/attributes.js';
import type { SpanHandle, TraceAttributes } from '../tracing/trace.js';
import { CancelledError, ConnectionClosedError, RpcError, TimeoutError } from '../rpc/errors.js';
import type { SendOptions, Upstream } from '../upstreams/upstream.js';
import type { Frame } from '../wire/frame.js';
import type { Call } from './call.js';

/**
 * What the tracing interceptor and the terminal say of a request in its spans, after the OpenTelemetry MCP
 * semantic conventions: the span's name is the method and its target (`tools/call get_weather`).
 */

/** Which param names a request's target, by method (a tool, a prompt, a resource). */
const TARGETS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'resources/subscribe': 'uri',
  'resources/unsubscribe': 'uri',
};

export function spanName(method: string, params: Record<string, unknown>): string {
  const key = TARGETS[method];
  const target = key === undefined ? undefined : params[key];
  return typeof target === 'string' ? `${method} ${target}` : method;
}

/** The target's attributes: the tool (gen_ai.tool.name, an execute_tool operation), the prompt or the resource. */
export function targetAttributes(method: string, params: Record<string, unknown>): TraceAttributes {
  const name = typeof params.name === 'string' ? params.name : undefined;
  const uri = typeof params.uri === 'string' ? params.uri : undefined;
  if (method === 'tools/call' && name !== undefined) return { [ATTR.toolName]: name, [ATTR.operation]: 'execute_tool' };
  if (method === 'prompts/get' && name !== undefined) return { [ATTR.promptName]: name };
  if (uri !== undefined && TARGETS[method] === 'uri') return { [ATTR.resourceUri]: uri };
  return {};
}

/** `error.type` of a request that got no answer: cancelled, timed out, the connection gone, or a JSON-RPC code. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof CancelledError) return 'cancelled';
  if (error instanceof TimeoutError) return 'timeout';
  if (error instanceof ConnectionClosedError) return 'connection_closed';
  if (error instanceof RpcError) return String(error.code);
  return error instanceof Error ? error.name : 'error';
}

/** Marks `span` by how `answer` ended it: a JSON-RPC error (its code), a tool's error result (`tool_error`). */
export function markAnswer(span: SpanHandle, answer: Frame): void {
  const { error, result } = answer.message;
  if (error) {
    span.set({ [ATTR.rpcStatus]: String(error.code) });
    span.fail(String(error.code), error.message);
  } else if (result && (result as { isError?: unknown }).isError === true) {
    span.fail('tool_error');
  }
}

/**
 * A traced call to an upstream: a child span of the request's, which the upstream gets as its parent, in `_meta`
 * (the MCP convention) and, over HTTP, in the `traceparent`/`tracestate` headers. This rewrites the request, which is
 * what tracing on asks for; a call that is not traced never comes here and goes as it came.
 */
export async function tracedSend(call: Call, to: Upstream, options: SendOptions): Promise<Frame> {
  const { span, carrier } = call.trace!.outgoing(spanName(call.method, call.params), {
    [ATTR.method]: call.method,
    [ATTR.server]: to.name,
    ...targetAttributes(call.method, call.params),
  });
  const meta = call.frame.params._meta;
  const own = meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? meta : {};
  // The client's own trace context, if it sent one, is replaced: the upstream's parent is the proxy's span.
  const { traceparent: _parent, tracestate: _state, ...rest } = own as Record<string, unknown>;
  const frame = call.frame.with(['params', '_meta'], { ...rest, ...carrier });
  try {
    const answer = await to.send(frame, { ...options, headers: { ...carrier } });
    span.set({ [ATTR.upstreamBytes]: answer.byteLength });
    markAnswer(span, answer);
    return answer;
  } catch (error) {
    span.fail(errorTypeOf(error), error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    span.end();
  }
}
