import { ATTR } from '../../tracing/attributes.js';
import type { TraceAttributes, TraceCarrier } from '../../tracing/trace.js';
import { artifactsOf } from '../events.js';
import type { Call } from '../call.js';
import type { Interceptor } from '../chain.js';
import type { RelayContext } from '../context.js';
import { errorTypeOf, markAnswer, spanName, targetAttributes } from '../traced.js';

/**
 * One span per client request (OpenTelemetry, when tracing is on), continuing the client's trace from the request's
 * `_meta.traceparent` (the MCP convention) or its HTTP `traceparent` header. The call carries the span: the terminal
 * makes the upstream call's child (and hands it on as the upstream's parent), the pipeline and the store theirs.
 * With tracing off it takes no message at all, so no chain has it.
 */
export function tracing(context: RelayContext): Interceptor {
  return {
    name: 'tracing',
    takes: (_method, fromClient) => fromClient && context.tracing !== undefined,
    async request(call, next) {
      const trace = context.tracing!.request(spanName(call.method, call.params), attributesOf(call), parentOf(call));
      call.trace = trace;
      try {
        const answer = await next(call);
        const result = answer.message.result;
        trace.set({
          [ATTR.bytesOut]: answer.byteLength,
          ...(call.upstreamAnswer ? { [ATTR.upstreamBytes]: call.upstreamAnswer.byteLength } : {}),
          ...(call.report ? { [ATTR.server]: call.report.server } : {}),
          [ATTR.artifacts]: result ? artifactsOf(result).length : 0,
        });
        markAnswer(trace, answer);
        return answer;
      } catch (error) {
        trace.fail(
          call.cancellation.aborted ? 'cancelled' : errorTypeOf(error),
          error instanceof Error ? error.message : undefined,
        );
        throw error;
      } finally {
        trace.end();
      }
    },
  };
}

function attributesOf(call: Call): TraceAttributes {
  const session = call.session!;
  const sessionId = header(call, 'mcp-session-id') ?? session.id;
  const id = call.received.id;
  return {
    [ATTR.method]: call.method,
    [ATTR.sessionId]: sessionId,
    ...(call.envelope.protocolVersion ? { [ATTR.protocolVersion]: call.envelope.protocolVersion } : {}),
    ...(typeof id === 'string' || typeof id === 'number' ? { [ATTR.requestId]: String(id) } : {}),
    [ATTR.transport]: call.headers ? 'tcp' : 'pipe',
    [ATTR.bytesIn]: call.received.byteLength,
    ...targetAttributes(call.method, call.params),
  };
}

/** The client's trace context: `_meta` first (it names this request), else the HTTP request's headers. */
function parentOf(call: Call): TraceCarrier | undefined {
  const meta = call.params._meta as Record<string, unknown> | undefined;
  const traceparent = meta?.traceparent;
  if (typeof traceparent === 'string') {
    const tracestate = meta?.tracestate;
    return { traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) };
  }
  const fromHeader = header(call, 'traceparent');
  if (fromHeader === undefined) return undefined;
  const state = header(call, 'tracestate');
  return { traceparent: fromHeader, ...(state !== undefined ? { tracestate: state } : {}) };
}

function header(call: Call, name: string): string | undefined {
  const value = call.headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}
