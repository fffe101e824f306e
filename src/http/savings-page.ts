import { humanSize } from '../artifacts/sizes.js';
import type { ArtifactRecord } from '../artifacts/types.js';
import { linePlot } from './plot.js';
import type { SavingsLedger, ToolSavings } from './savings.js';

/** Where the savings page is served, beside the gallery (/artifacts). */
export const SAVINGS_PATH = '/savings';

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const percent = (sent: number, got: number): string => (sent > 0 ? `${Math.round((1 - got / sent) * 100)}%` : '–');

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{padding:16px 24px;background:#fff;border-bottom:1px solid #dde1e7;display:flex;gap:16px;align-items:center}
h1{font-size:18px;margin:0 auto 0 0}
main{padding:24px;display:flex;flex-direction:column;gap:24px}
.cards{display:flex;flex-wrap:wrap;gap:16px}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px 16px;min-width:160px}
.card b{display:block;font-size:20px}
.plots{display:flex;flex-wrap:wrap;gap:16px}
.plot{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px;margin:0}
figcaption{font-weight:600;margin-bottom:8px}
table{border-collapse:collapse;background:#fff;border:1px solid #dde1e7}
th,td{padding:6px 12px;border-bottom:1px solid #eef0f3;text-align:right}
th:first-child,td:first-child{text-align:left}
.empty{color:#5b6475}
`;

/**
 * The savings page: what the upstreams sent against what the clients got since the gateway started, per server and
 * tool, with the totals plotted over time, and the artifacts the store holds (stored over time). No script: plots are
 * inline SVG drawn here, under the gallery's CSP.
 */
export function savingsHtml(ledger: SavingsLedger, stored: readonly ArtifactRecord[], nonce: string): string {
  const rows = ledger.rows(stored);
  const sum = (key: keyof Omit<ToolSavings, 'server' | 'tool'>) => rows.reduce((total, row) => total + row[key], 0);
  const sent = sum('upstreamBytes');
  const got = sum('clientBytes');
  const series = ledger.series();
  const bytesPlot = linePlot(
    'Bytes over time: what upstreams sent, what clients got',
    [
      { label: 'upstreams sent', color: '#c2410c', points: series.map((p) => [p.at, p.upstreamBytes] as const) },
      { label: 'clients got', color: '#1d4ed8', points: series.map((p) => [p.at, p.clientBytes] as const) },
    ],
    humanSize,
  );
  const times = stored
    .map((r) => Date.parse(r.created))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const artifactsPlot = linePlot(
    'Artifacts stored over time',
    [{ label: 'artifacts', color: '#15803d', points: times.map((t, i) => [t, i + 1] as const) }],
    (v) => String(Math.round(v)),
  );
  const table = rows.length
    ? `<table><thead><tr><th>Server / tool</th><th>Calls</th><th>Upstream sent</th><th>≈ tokens</th><th>Client got</th><th>≈ tokens</th><th>Saved</th><th>Artifacts</th></tr></thead><tbody>${rows
        .map(
          (r) =>
            `<tr data-server="${escape(r.server)}" data-tool="${escape(r.tool)}"><td>${escape(r.server)} / ${escape(r.tool)}</td><td>${r.calls}</td><td>${humanSize(r.upstreamBytes)}</td><td>${r.upstreamTokens.toLocaleString('en-US')}</td><td>${humanSize(r.clientBytes)}</td><td>${r.clientTokens.toLocaleString('en-US')}</td><td>${percent(r.upstreamBytes, r.clientBytes)}</td><td>${r.artifacts} (${humanSize(r.artifactBytes)})</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p class="empty">No tool calls yet: they appear here as they are answered.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Savings · mcp-offload</title><style nonce="${nonce}">${STYLE}</style></head>
<body><header><h1>Savings</h1><a href="artifacts">Artifacts</a></header>
<main><section class="cards">
<div class="card" id="sent">Upstreams sent<b>${humanSize(sent)}</b>≈ ${sum('upstreamTokens').toLocaleString('en-US')} tokens</div>
<div class="card" id="got">Clients got<b>${humanSize(got)}</b>≈ ${sum('clientTokens').toLocaleString('en-US')} tokens</div>
<div class="card" id="saved">Kept out of context<b>${percent(sent, got)}</b>${humanSize(Math.max(0, sent - got))}</div>
<div class="card" id="artifacts">Artifacts stored<b>${sum('artifacts')}</b>${humanSize(sum('artifactBytes'))}</div>
</section><section class="plots">${bytesPlot}${artifactsPlot}</section>
<section>${table}</section></main></body></html>`;
}
