import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace';
import type { Logger } from '../logger.js';
import { VERSION } from '../version.js';
import type { TracingSettings } from './settings.js';
import type { RequestTrace, SpanHandle, TraceAttributes, TraceCarrier, Tracing } from './trace.js';

type Sdk = typeof import('@opentelemetry/sdk-trace');

/**
 * The OpenTelemetry SDK, loaded now (dynamic imports: a gateway without tracing never loads it): a TracerProvider
 * of its own (not the global one: several gateways may share a process), a batch processor, the OTLP/HTTP exporter
 * of the chosen encoding and the W3C trace-context propagator.
 */
export async function startTracing(settings: TracingSettings, log: Logger): Promise<Tracing> {
  // One after the other: they share modules, and jest's ESM loader fails to link modules imported concurrently.
  const api = await import('@opentelemetry/api');
  const core = await import('@opentelemetry/core');
  const sdk = await import('@opentelemetry/sdk-trace');
  const resources = await import('@opentelemetry/resources');
  const otlp =
    settings.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  const tracingLog = log.child({ component: 'tracing' });
  // Export failures reach the SDK's diagnostic logger, a no-op until one is set: they go to our log (stderr).
  api.diag.setLogger(
    {
      error: (message) => tracingLog.warn(message),
      warn: (message) => tracingLog.warn(message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    api.DiagLogLevel.WARN,
  );
  // The exporter reads OTEL_EXPORTER_OTLP_*; what is given here is the YAML's, for what no variable sets.
  const exporter = new otlp.OTLPTraceExporter({
    ...(settings.url ? { url: settings.url } : {}),
    ...(settings.headers ? { headers: settings.headers } : {}),
  });
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the YAML's name.
  const fromEnv = resources.detectResources({ detectors: [resources.envDetector] });
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': VERSION }))
    .merge(fromEnv);
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerOf(sdk, settings),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('mcp-offload', VERSION);
  const propagator = new core.W3CTraceContextPropagator();
  tracingLog.info(
    { protocol: settings.protocol, sampler: settings.sampler, ...(settings.url ? { url: settings.url } : {}) },
    'tracing on',
  );

  const handle = (span: Span): SpanHandle => ({
    set: (attributes) => span.setAttributes(attributes),
    fail: (errorType, message) => {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: api.SpanStatusCode.ERROR, ...(message !== undefined ? { message } : {}) });
    },
    end: () => span.end(),
  });

  const requestTrace = (span: Span, context: Context): RequestTrace => ({
    ...handle(span),
    async child(name, attributes, work) {
      const child = tracer.startSpan(name, { kind: api.SpanKind.INTERNAL, attributes }, context);
      try {
        return await work(requestTrace(child, api.trace.setSpan(context, child)));
      } catch (error) {
        child.recordException(error instanceof Error ? error : String(error));
        child.setStatus({
          code: api.SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        throw error;
      } finally {
        child.end();
      }
    },
    outgoing(name, attributes) {
      const child = tracer.startSpan(name, { kind: api.SpanKind.CLIENT, attributes }, context);
      const carrier: TraceCarrier = {};
      propagator.inject(api.trace.setSpan(context, child), carrier, api.defaultTextMapSetter);
      return { span: handle(child), carrier };
    },
  });

  return {
    request(name: string, attributes: TraceAttributes, parent: TraceCarrier | undefined): RequestTrace {
      const from = parent ? propagator.extract(api.ROOT_CONTEXT, parent, api.defaultTextMapGetter) : api.ROOT_CONTEXT;
      const span = (tracer as Tracer).startSpan(name, { kind: api.SpanKind.SERVER, attributes }, from);
      return requestTrace(span, api.trace.setSpan(from, span));
    },
    async shutdown() {
      await provider.shutdown().catch((error: unknown) => tracingLog.warn({ err: String(error) }, 'tracing shutdown'));
    },
  };
}

/** The sampler OTEL_TRACES_SAMPLER names (settings.ts has read it and its argument). */
function samplerOf(sdk: Sdk, settings: TracingSettings): Sampler {
  const ratio = () => new sdk.TraceIdRatioBasedSampler(settings.ratio);
  switch (settings.sampler) {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: ratio() });
    default:
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
  }
}
