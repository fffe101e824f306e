import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isTextMimeType } from '../artifacts/mime.js';
import type { Gateway } from '../gateway/gateway.js';
import { estimatedTextTokens } from './savings.js';

/** Base64 puts 4 characters where there were 3 bytes; a model reads about 4 characters a token. */
const CHARS_PER_TOKEN = 4;

export function estimatedTokens(size: number, mimeType: string): number {
  const chars = isTextMimeType(mimeType) ? size : Math.ceil(size / 3) * 4;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** What one tool's calls added up to since start, as its counters show it. */
interface ToolTally {
  labels: { server: string; tool: string };
  /** Calls per outcome. */
  outcomes: Map<string, number>;
  upstreamBytes: number;
  upstreamTokens: number;
  clientBytes: number;
  clientTokens: number;
}

/**
 * The gateway's Prometheus metrics, in a registry of its own (several gateways may share a
 * process in tests; the global registry would mix them).
 */
export function gatewayMetrics(gateway: Gateway, sessions: () => number): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'mcp_offload_process_' });
  // Every call adds to its tool's tally; the counters read the tallies when scraped. Six labelled increments per
  // call (each hashing its labels) were most of what the metrics cost a call.
  const tallies = new Map<string, ToolTally>();
  const fromTallies = (read: (tally: ToolTally) => Array<[Record<string, string>, number]>) =>
    function (this: Counter) {
      this.reset();
      for (const tally of tallies.values()) for (const [labels, value] of read(tally)) this.inc(labels, value);
    };
  new Counter({
    name: 'mcp_offload_tool_calls_total',
    help: 'tools/call requests by server, tool and outcome (ok, error: an isError result, failed: no result)',
    labelNames: ['server', 'tool', 'outcome'],
    registers: [registry],
    collect: fromTallies((tally) =>
      [...tally.outcomes].map(
        ([outcome, count]) => [{ ...tally.labels, outcome }, count] as [Record<string, string>, number],
      ),
    ),
  });
  const latency = new Histogram({
    name: 'mcp_offload_tool_call_duration_seconds',
    help: 'Time from a tools/call request to its (rewritten) result, by server and tool',
    labelNames: ['server', 'tool'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const offloaded = new Counter({
    name: 'mcp_offload_offloaded_bytes_total',
    help: 'Bytes of payloads stored as artifacts instead of being sent to the client, by server and tool',
    labelNames: ['server', 'tool'],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'mcp_offload_tokens_saved_total',
    help: 'Estimated tokens kept out of the model context (4 characters a token; binary counted as its base64)',
    labelNames: ['server', 'tool'],
    registers: [registry],
  });
  const stored = new Counter({
    name: 'mcp_offload_artifacts_stored_total',
    help: 'Artifacts handed out in results (identical bytes stored again count again)',
    labelNames: ['server', 'tool'],
    registers: [registry],
  });
  // What the proxy saved, per call: the answer as the upstream sent it, and as the client got it.
  new Counter({
    name: 'mcp_offload_upstream_bytes_total',
    help: 'Bytes of tools/call answers as the upstream sent them, by server and tool',
    labelNames: ['server', 'tool'],
    registers: [registry],
    collect: fromTallies((tally) => [[tally.labels, tally.upstreamBytes]]),
  });
  new Counter({
    name: 'mcp_offload_upstream_tokens_total',
    help: 'Estimated tokens of tools/call answers as the upstream sent them (4 bytes a token), by server and tool',
    labelNames: ['server', 'tool'],
    registers: [registry],
    collect: fromTallies((tally) => [[tally.labels, tally.upstreamTokens]]),
  });
  new Counter({
    name: 'mcp_offload_client_bytes_total',
    help: 'Bytes of tools/call answers as the client got them, by server and tool',
    labelNames: ['server', 'tool'],
    registers: [registry],
    collect: fromTallies((tally) => [[tally.labels, tally.clientBytes]]),
  });
  new Counter({
    name: 'mcp_offload_client_tokens_total',
    help: 'Estimated tokens of tools/call answers as the client got them (4 bytes a token), by server and tool',
    labelNames: ['server', 'tool'],
    registers: [registry],
    collect: fromTallies((tally) => [[tally.labels, tally.clientTokens]]),
  });
  const collected = new Counter({
    name: 'mcp_offload_artifacts_collected_total',
    help: 'Artifacts removed by garbage collection (time to live or quota)',
    registers: [registry],
  });
  const collectedBytes = new Counter({
    name: 'mcp_offload_artifacts_collected_bytes_total',
    help: 'Bytes freed by garbage collection',
    registers: [registry],
  });
  const reads = new Counter({
    name: 'mcp_offload_artifact_reads_total',
    help: 'Artifacts read back, by way (resources/read, artifact_read, download)',
    labelNames: ['via'],
    registers: [registry],
  });
  new Gauge({
    name: 'mcp_offload_artifacts',
    help: 'Artifacts in the store now',
    registers: [registry],
    collect() {
      this.set(gateway.offload.store.list().length);
    },
  });
  new Gauge({
    name: 'mcp_offload_artifacts_bytes',
    help: 'Bytes in the store now',
    registers: [registry],
    collect() {
      this.set(gateway.offload.store.totalBytes);
    },
  });
  new Gauge({
    name: 'mcp_offload_upstream_restarts',
    help: 'Times each upstream server has been restarted since the gateway started',
    labelNames: ['server'],
    registers: [registry],
    collect() {
      for (const upstream of gateway.upstreams) this.set({ server: upstream.name }, upstream.restarts);
    },
  });
  new Gauge({
    name: 'mcp_offload_upstream_up',
    help: '1 when the upstream server is connected, else 0',
    labelNames: ['server'],
    registers: [registry],
    collect() {
      for (const upstream of gateway.upstreams) this.set({ server: upstream.name }, upstream.state === 'up' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'mcp_offload_sessions',
    help: 'Connected client sessions',
    registers: [registry],
    collect() {
      this.set(sessions());
    },
  });

  gateway.events.on('call', ({ server, tool, outcome, seconds, artifacts, upstreamBytes: sent, clientBytes: got }) => {
    const key = `${server}\u0000${tool}`;
    let tally = tallies.get(key);
    if (!tally) {
      tally = {
        labels: { server, tool },
        outcomes: new Map(),
        upstreamBytes: 0,
        upstreamTokens: 0,
        clientBytes: 0,
        clientTokens: 0,
      };
      tallies.set(key, tally);
    }
    tally.outcomes.set(outcome, (tally.outcomes.get(outcome) ?? 0) + 1);
    tally.upstreamBytes += sent;
    tally.upstreamTokens += estimatedTextTokens(sent);
    tally.clientBytes += got;
    tally.clientTokens += estimatedTextTokens(got);
    latency.observe(tally.labels, seconds);
    for (const artifact of artifacts) {
      stored.inc({ server, tool });
      offloaded.inc({ server, tool }, artifact.size);
      tokens.inc({ server, tool }, estimatedTokens(artifact.size, artifact.mimeType));
    }
  });
  gateway.events.on('collected', (result) => {
    collected.inc(result.removed);
    collectedBytes.inc(result.freedBytes);
  });
  gateway.events.on('artifactRead', ({ via }) => reads.inc({ via }));
  return registry;
}
