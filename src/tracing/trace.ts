/**
 * What the relay asks of tracing. The relay imports these types only: the OpenTelemetry SDK behind them
 * (start.ts) is loaded when tracing is on, and with it off no call carries a trace, so nothing is spent.
 */

/** Span attributes: the OpenTelemetry MCP and GenAI semantic conventions' names (attributes.ts), and ours. */
export type TraceAttributes = Record<string, string | number | boolean>;

/** W3C trace context as MCP carries it in `_meta` (and HTTP in headers of the same names). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** One span being recorded. */
export interface SpanHandle {
  set(attributes: TraceAttributes): void;
  /** Marks the span failed: `errorType` is the `error.type` attribute (a JSON-RPC code, `tool_error`, `cancelled`). */
  fail(errorType: string, message?: string): void;
  end(): void;
}

/** The span of one client request (or of a step in it), and how its children are made. */
export interface RequestTrace extends SpanHandle {
  /**
   * Runs `work` in a child span (the result pipeline, the artifact store), which `work` gets, to add attributes and
   * children of its own; a throw fails the span and goes on.
   */
  child<T>(name: string, attributes: TraceAttributes, work: (span: RequestTrace) => Promise<T>): Promise<T>;
  /** A child span for a call to an upstream, and the trace context that names it as the upstream's parent. */
  outgoing(name: string, attributes: TraceAttributes): { span: SpanHandle; carrier: TraceCarrier };
}

export interface Tracing {
  /** Starts the span of a client request; `parent` continues the client's trace. */
  request(name: string, attributes: TraceAttributes, parent: TraceCarrier | undefined): RequestTrace;
  /** Exports what is left, then stops. */
  shutdown(): Promise<void>;
}

/** `work` in a child span of `trace`, or just `work` when the call is not traced. */
export function traced<T>(
  trace: RequestTrace | undefined,
  name: string,
  attributes: TraceAttributes,
  work: (span?: RequestTrace) => Promise<T>,
): Promise<T> {
  return trace ? trace.child(name, attributes, work) : work();
}
