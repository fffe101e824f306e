// Recall of the tool search (src/relay/disclosure/tool-index.ts) on the real catalog in bench/data/, against a
// plain BM25 baseline: MiniSearch with its defaults (its own tokenizer, no stemming, no synonyms, no field weights,
// no per-server normalization) over each tool's name, description and parameter names in one field.
import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';

export function loadCatalog(root) {
  const { servers } = JSON.parse(readFileSync(`${root}/bench/data/catalog.json`, 'utf8'));
  return servers;
}

export function loadQueries(root) {
  return JSON.parse(readFileSync(`${root}/bench/data/queries.json`, 'utf8')).queries;
}

/** The catalog as a gateway exposes it: names prefixed `<server>__`, the proxy's own tools unprefixed. */
export async function indexedTools(root, servers = loadCatalog(root)) {
  const { artifactTools } = await import(`${root}/dist/artifacts/tools.js`);
  const { DEFAULTS } = await import(`${root}/dist/config/types.js`);
  const own = artifactTools(DEFAULTS.artifacts.tools).map((tool) => ({ name: tool.name, server: 'mcp-offload', tool }));
  return [
    ...own,
    ...servers.flatMap((s) => s.tools.map((tool) => ({ name: `${s.server}__${tool.name}`, server: s.server, tool }))),
  ];
}

export function plainBm25(tools) {
  const index = new MiniSearch({ fields: ['text'], idField: 'id' });
  index.addAll(
    tools.map((t, id) => ({
      id,
      text: [t.name, t.tool.description ?? '', ...Object.keys(t.tool.inputSchema?.properties ?? {})].join(' '),
    })),
  );
  return {
    search: (query, limit) =>
      index
        .search(query)
        .slice(0, limit)
        .map((hit) => tools[hit.id]),
  };
}

/** recall@k: the share of queries with one of their expected tools among the first k results. */
export function recall(index, queries, ks = [1, 5]) {
  const hits = Object.fromEntries(ks.map((k) => [k, 0]));
  const misses = [];
  for (const { q, expect } of queries) {
    const found = index.search(q, Math.max(...ks)).map((t) => t.name);
    for (const k of ks) if (found.slice(0, k).some((name) => expect.includes(name))) hits[k]++;
    if (!found.slice(0, 5).some((name) => expect.includes(name))) misses.push({ q, expect, found });
  }
  return { ...Object.fromEntries(ks.map((k) => [`at${k}`, hits[k] / queries.length])), misses };
}
