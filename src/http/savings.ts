import type { ArtifactRecord } from '../artifacts/types.js';
import type { CallEvent } from '../relay/events.js';

/** A model reads about 4 characters a token; an MCP answer is JSON text, one byte a character but for non-ASCII. */
const BYTES_PER_TOKEN = 4;

export const estimatedTextTokens = (bytes: number): number => Math.ceil(bytes / BYTES_PER_TOKEN);

/** What one server's tool cost and saved. */
export interface ToolSavings {
  server: string;
  tool: string;
  calls: number;
  /** Bytes the upstream sent, and the tokens they would have been in the model's context. */
  upstreamBytes: number;
  upstreamTokens: number;
  /** Bytes the client got. */
  clientBytes: number;
  clientTokens: number;
  artifacts: number;
  artifactBytes: number;
}

/** One point of a plot over time: the totals up to `at`. */
export interface SavingsPoint {
  at: number;
  upstreamBytes: number;
  clientBytes: number;
}

/** A finished call, as the ledger counts it: from the gateway's events, or from an audit log line. */
export interface CountedCall {
  at: number;
  server: string;
  tool: string;
  upstreamBytes: number;
  clientBytes: number;
}

/** Points kept for the plots; older ones are merged pairwise, so a long life keeps its shape in bounded memory. */
const MAX_POINTS = 512;

/**
 * Savings per server and tool, and their totals over time. Calls and bytes come from finished calls (the gateway's
 * events for the savings page, the audit log's `tool.call` lines for `mcp-offload stats`); artifacts from the store.
 */
export class SavingsLedger {
  private readonly tools = new Map<string, ToolSavings>();
  private points: SavingsPoint[] = [];
  private readonly totals = { upstreamBytes: 0, clientBytes: 0 };

  count(call: CountedCall): void {
    const row = this.row(call.server, call.tool);
    row.calls++;
    row.upstreamBytes += call.upstreamBytes;
    row.upstreamTokens += estimatedTextTokens(call.upstreamBytes);
    row.clientBytes += call.clientBytes;
    row.clientTokens += estimatedTextTokens(call.clientBytes);
    this.totals.upstreamBytes += call.upstreamBytes;
    this.totals.clientBytes += call.clientBytes;
    this.points.push({ at: call.at, ...this.totals });
    if (this.points.length > MAX_POINTS) this.points = this.points.filter((_, i) => i % 2 === 1 || i === 0);
  }

  /**
   * Each server's tools, most saved first: the calls counted, and the artifacts of `stored` (the store is what they
   * are, whoever made them and whenever) under the server and tool that made them.
   */
  rows(stored: readonly ArtifactRecord[] = []): ToolSavings[] {
    const rows = new Map([...this.tools].map(([key, row]) => [key, { ...row }]));
    for (const record of stored) {
      const row = rowIn(rows, record.server, record.tool);
      row.artifacts++;
      row.artifactBytes += record.size;
    }
    return [...rows.values()].sort(
      (a, b) => b.upstreamBytes - b.clientBytes - (a.upstreamBytes - a.clientBytes) || a.server.localeCompare(b.server),
    );
  }

  series(): readonly SavingsPoint[] {
    return this.points;
  }

  private row(server: string, tool: string): ToolSavings {
    return rowIn(this.tools, server, tool);
  }
}

function rowIn(rows: Map<string, ToolSavings>, server: string, tool: string): ToolSavings {
  const key = `${server}\u0000${tool}`;
  let row = rows.get(key);
  if (!row) {
    row = {
      server,
      tool,
      calls: 0,
      upstreamBytes: 0,
      upstreamTokens: 0,
      clientBytes: 0,
      clientTokens: 0,
      artifacts: 0,
      artifactBytes: 0,
    };
    rows.set(key, row);
  }
  return row;
}

/** A call event as the ledger counts it. */
export function countedCall(event: CallEvent, at = Date.now()): CountedCall {
  return {
    at,
    server: event.server,
    tool: event.tool,
    upstreamBytes: event.upstreamBytes,
    clientBytes: event.clientBytes,
  };
}
