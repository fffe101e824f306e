// A real OTLP/HTTP trace receiver for tests: what an OpenTelemetry Collector's otlp receiver does with POST
// /v1/traces, on 127.0.0.1. Protobuf bodies are decoded with the official OTLP message definitions (the protobufjs
// code generated from opentelemetry-proto that @opentelemetry/otlp-transformer shipped, pinned as a dev dependency
// under the name otlp-transformer-protobuf), JSON bodies as the OTLP/JSON encoding has them (hex ids). Every span is
// kept, flattened, with how it arrived.
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
interface Decoder {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): unknown;
}
const root = require('otlp-transformer-protobuf/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Decoder } } } } };
};
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

type Value = string | number | boolean;

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** 1 internal, 2 server, 3 client (OTLP SpanKind). */
  kind: number;
  attributes: Record<string, Value>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, Value>;
  encoding: 'protobuf' | 'json';
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter appends /v1/traces). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests received. */
  contentTypes: string[];
  close(): Promise<void>;
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        kind?: number;
        attributes?: OtlpAttribute[];
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

function attributes(list: OtlpAttribute[] | undefined): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

const hex = (id: string | undefined, encoding: 'protobuf' | 'json'): string =>
  !id ? '' : encoding === 'json' ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

function flatten(request: OtlpRequest, encoding: 'protobuf' | 'json'): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const span of ss.spans ?? [])
        spans.push({
          name: span.name,
          traceId: hex(span.traceId, encoding),
          spanId: hex(span.spanId, encoding),
          parentSpanId: hex(span.parentSpanId, encoding),
          kind: span.kind ?? 0,
          attributes: attributes(span.attributes),
          status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
          resource,
          encoding,
        });
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      contentTypes.push(type);
      const body = Buffer.concat(chunks);
      try {
        if (type === 'application/x-protobuf') {
          const message = ExportTraceServiceRequest.decode(body);
          const decoded = ExportTraceServiceRequest.toObject(message, { longs: String, bytes: String, enums: Number });
          spans.push(...flatten(decoded as OtlpRequest, 'protobuf'));
          // An empty ExportTraceServiceResponse: zero bytes.
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        } else if (type === 'application/json') {
          spans.push(...flatten(JSON.parse(body.toString('utf8')) as OtlpRequest, 'json'));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else {
          res.writeHead(415).end();
        }
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
