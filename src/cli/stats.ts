import { readFile } from 'node:fs/promises';
import { humanSize } from '../artifacts/sizes.js';
import { ArtifactStore } from '../artifacts/store.js';
import type { StoreOptions } from '../artifacts/types.js';
import { SavingsLedger, type ToolSavings } from '../http/savings.js';
import type { Logger } from '../logger.js';

/** What `mcp-offload stats` reports: per server and tool, and the totals. */
export interface StatsReport {
  /** The audit log read (calls and bytes come from it), if one was given. */
  auditLog?: string;
  /** The store read (artifacts come from it). */
  store: string;
  tools: ToolSavings[];
  totals: Omit<ToolSavings, 'server' | 'tool'>;
}

/**
 * `mcp-offload stats`: what the proxy saved, per server and tool. Calls and the bytes the upstream sent and the client
 * got come from the audit log (the `tool.call` lines the HTTP gateway writes to stderr, kept where its log goes);
 * artifacts from the store, which holds what is left of them.
 */
export async function statsReport(
  options: StoreOptions,
  auditLog: string | undefined,
  log: Logger,
): Promise<StatsReport> {
  const ledger = new SavingsLedger();
  if (auditLog !== undefined) for (const call of await auditCalls(auditLog)) ledger.count(call);
  const store = new ArtifactStore(options, log);
  await store.init();
  let tools: ToolSavings[];
  try {
    await store.loaded();
    tools = ledger.rows(store.list());
  } finally {
    store.close();
  }
  const totals = {
    calls: 0,
    upstreamBytes: 0,
    upstreamTokens: 0,
    clientBytes: 0,
    clientTokens: 0,
    artifacts: 0,
    artifactBytes: 0,
  };
  for (const row of tools) for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += row[key];
  return { ...(auditLog !== undefined ? { auditLog } : {}), store: store.dir, tools, totals };
}

/** The `tool.call` lines of an audit log (pino JSON lines; other lines, and lines that are not JSON, are skipped). */
async function auditCalls(path: string) {
  const calls = [];
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry.audit !== true || entry.event !== 'tool.call') continue;
    calls.push({
      at: typeof entry.time === 'number' ? entry.time : 0,
      server: String(entry.server),
      tool: String(entry.tool),
      upstreamBytes: Number(entry.upstreamBytes) || 0,
      clientBytes: Number(entry.clientBytes) || 0,
    });
  }
  return calls.sort((a, b) => a.at - b.at);
}

const COLUMNS: Array<[string, (row: Omit<ToolSavings, 'server' | 'tool'>) => string]> = [
  ['calls', (r) => String(r.calls)],
  ['upstream sent', (r) => humanSize(r.upstreamBytes)],
  ['~tokens', (r) => r.upstreamTokens.toLocaleString('en-US')],
  ['client got', (r) => humanSize(r.clientBytes)],
  ['~tokens', (r) => r.clientTokens.toLocaleString('en-US')],
  ['saved', (r) => (r.upstreamBytes > 0 ? `${Math.round((1 - r.clientBytes / r.upstreamBytes) * 100)}%` : '-')],
  ['artifacts', (r) => `${r.artifacts} (${humanSize(r.artifactBytes)})`],
];

/** The report as a table for a person: one row per server and tool, the totals last. */
export function statsTable(report: StatsReport): string {
  const rows = [
    ['server / tool', ...COLUMNS.map(([name]) => name)],
    ...report.tools.map((row) => [`${row.server} / ${row.tool}`, ...COLUMNS.map(([, cell]) => cell(row))]),
    ['total', ...COLUMNS.map(([, cell]) => cell(report.totals))],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const source = report.auditLog
    ? `calls from ${report.auditLog}`
    : 'no --audit-log: artifacts only (calls and bytes are in the audit log)';
  return [
    line(rows[0]!),
    rule,
    ...rows.slice(1, -1).map(line),
    rule,
    line(rows.at(-1)!),
    '',
    `${source}; artifacts in ${report.store}`,
    '',
  ].join('\n');
}
