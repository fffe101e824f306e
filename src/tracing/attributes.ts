/**
 * Span attribute names. The MCP and GenAI ones follow the OpenTelemetry semantic conventions (gen-ai/mcp.md),
 * which are still in development: they are spelled here rather than imported from the `incubating` entry of
 * @opentelemetry/semantic-conventions, whose names may move between releases. Ours are under `mcp_offload.`.
 */
export const ATTR = {
  method: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  errorType: 'error.type',
  rpcStatus: 'rpc.response.status_code',
  transport: 'network.transport',
  /** Which configured server serves the request. */
  server: 'mcp_offload.server',
  /** Bytes of the request as the client sent it. */
  bytesIn: 'mcp_offload.request.bytes',
  /** Bytes of the answer as the upstream sent it, before the pipeline. */
  upstreamBytes: 'mcp_offload.upstream.response.bytes',
  /** Bytes of the answer the client got. */
  bytesOut: 'mcp_offload.response.bytes',
  /** Artifacts the pipeline stored for this answer. */
  artifacts: 'mcp_offload.artifacts.stored',
  mimeType: 'mcp_offload.artifact.mime_type',
  artifactBytes: 'mcp_offload.artifact.bytes',
} as const;
