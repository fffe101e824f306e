// The image's HEALTHCHECK: exit 0 when /healthz answers 200 on the port mcp-offload listens on.
// Node rather than curl, so the runtime image needs no extra package.
const listen = process.env.MCP_OFFLOAD_LISTEN ?? '0.0.0.0:8080';
const port = Number(/(\d+)$/.exec(listen)?.[1] ?? 8080);
try {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) });
  process.exit(response.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
