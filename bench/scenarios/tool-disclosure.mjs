// Scenario group "tool-disclosure" (issue 35): what `search` disclosure saves and what it costs. The catalog is
// bench/data/catalog.json (307 real tools of nine public servers, and the proxy's own two); the tasks are
// bench/data/queries.json. Everything runs in this process on dist/ (no upstream is needed to rank or to list).
import { performance } from 'node:perf_hooks';
import { getEncoding } from 'js-tiktoken';
import { indexedTools, loadCatalog, loadQueries, plainBm25, recall } from '../lib/tool-search-eval.mjs';

const LISTING_GOAL = 2000;
const RECALL_GOAL = 0.9;

/** The catalog grown to `n` tools: copies of the real servers under other names (server2, server3, ...). */
function grown(servers, n) {
  const out = [];
  for (let copy = 1; out.reduce((k, s) => k + s.tools.length, 0) < n; copy++)
    for (const s of servers) out.push({ ...s, server: copy === 1 ? s.server : `${s.server}${copy}` });
  let left = n;
  return out.map((s) => {
    const tools = s.tools.slice(0, Math.max(0, left));
    left -= tools.length;
    return { ...s, tools };
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export default {
  name: 'tool-disclosure',
  title: 'Progressive tool disclosure: listing tokens, recall, search latency (#35)',
  summaryOrder: 2,
  method: `Tokens: \`JSON.stringify({tools})\` of what \`tools/list\` holds (the proxy's own tools and the catalog's, named as a
gateway names them, in \`all\`; the three meta-tools in \`search\`), counted with js-tiktoken's o200k_base. Recall@k: the
share of the ${'`'}bench/data/queries.json${'`'} tasks with one of their expected tools among the first k of
\`search_tools\` (src/relay/disclosure/tool-index.ts), and of a plain BM25 baseline (MiniSearch's defaults over name,
description and parameter names in one field: no stemming, synonyms, field weights or per-server normalization).
Latency: the median of one search per task (every task, three rounds) on the catalog grown to 500 and 5,000 tools by
copies of its servers under other names, and the time to build the index. Round trips: a direct call is one request; in
\`search\` a task costs one \`search_tools\` more when its tool is in the first 5, a second search (limit 20) when it is
in the first 20, and is counted as 3 extra otherwise.`,
  columns: [
    { key: 'measure', label: 'measure', align: 'left' },
    { key: 'value', label: 'value' },
  ],
  async run(ctx) {
    const root = ctx.root;
    const { ToolIndex } = await import(`${root}/dist/relay/disclosure/tool-index.js`);
    const { META_TOOLS } = await import(`${root}/dist/relay/disclosure/meta-tools.js`);
    const enc = getEncoding('o200k_base');
    const tokens = (tools) => enc.encode(JSON.stringify({ tools })).length;
    const servers = loadCatalog(root);
    const queries = loadQueries(root);
    const tools = await indexedTools(root, servers);
    const shown = (list) => list.map((t) => ({ ...t.tool, name: t.name }));
    const rows = [];
    rows.push({ measure: `tools/list in all, ${tools.length} tools (tokens)`, value: tokens(shown(tools)) });
    const big = await indexedTools(root, grown(servers, 5000));
    rows.push({ measure: `tools/list in all, ${big.length} tools (tokens)`, value: tokens(shown(big)) });
    rows.push({ measure: 'tools/list in search, any catalog (tokens)', value: tokens(META_TOOLS) });

    const ours = new ToolIndex(tools);
    const mine = recall(ours, queries, [1, 5, 20]);
    const base = recall(plainBm25(tools), queries, [1, 5]);
    rows.push({ measure: `recall@1, ${queries.length} tasks (search_tools)`, value: mine.at1.toFixed(3) });
    rows.push({ measure: 'recall@5 (search_tools)', value: mine.at5.toFixed(3) });
    rows.push({ measure: 'recall@1 (plain BM25)', value: base.at1.toFixed(3) });
    rows.push({ measure: 'recall@5 (plain BM25)', value: base.at5.toFixed(3) });
    for (const m of mine.misses) ctx.log(`  tool-disclosure miss@5: "${m.q}" → ${m.found.join(' ')}`);

    for (const n of [500, 5000]) {
      const catalog = await indexedTools(root, grown(servers, n));
      const start = performance.now();
      const index = new ToolIndex(catalog);
      const build = performance.now() - start;
      const times = [];
      for (let round = 0; round < 3; round++)
        for (const { q } of queries) {
          const t0 = performance.now();
          index.search(q, 5);
          times.push(performance.now() - t0);
        }
      rows.push({ measure: `search latency, ${catalog.length} tools (median ms)`, value: median(times).toFixed(2) });
      rows.push({ measure: `index build, ${catalog.length} tools (ms)`, value: build.toFixed(0) });
    }
    const extra = queries.map(({ q, expect }) => {
      const found = ours.search(q, 20).map((t) => t.name);
      const rank = found.findIndex((name) => expect.includes(name));
      return rank === -1 ? 3 : rank < 5 ? 1 : 2;
    });
    rows.push({
      measure: 'extra round trips per task (mean)',
      value: (extra.reduce((a, b) => a + b, 0) / extra.length).toFixed(2),
    });
    ctx.log(`  tool-disclosure: recall@5 ${mine.at5.toFixed(3)} (BM25 ${base.at5.toFixed(3)})`);
    return rows;
  },
  summary(rows) {
    const get = (prefix) => rows.find((r) => r.measure.startsWith(prefix))?.value;
    const listing = Number(get('tools/list in search'));
    const at5 = Number(get('recall@5 (search_tools)'));
    return [
      {
        issue: '#35',
        goal: `tools/list in search ≤ ${LISTING_GOAL} tokens whatever the catalog`,
        measured: `${listing} tokens`,
        met: listing <= LISTING_GOAL,
      },
      {
        issue: '#35',
        goal: `recall@5 ≥ ${RECALL_GOAL} (aim 0.95)`,
        measured: `${at5} (plain BM25 ${get('recall@5 (plain BM25)')}); recall@1 ${get('recall@1, ')}`,
        met: at5 >= RECALL_GOAL,
      },
    ];
  },
};
