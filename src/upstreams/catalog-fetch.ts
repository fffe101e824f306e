import type { Prompt, Resource, ResourceTemplateType, ServerCapabilities, Tool } from '@modelcontextprotocol/client';

import { loadTemplates } from '../protocol/uri-templates.js';

/** Sends one request of the proxy's own and resolves with its result (rejects with the server's error). */
export type Ask = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

export interface UpstreamCatalog {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
}

export type CatalogKind = keyof UpstreamCatalog;

export const CATALOG_KINDS: readonly CatalogKind[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

const LISTS: Record<CatalogKind, { method: string; capability: keyof ServerCapabilities }> = {
  tools: { method: 'tools/list', capability: 'tools' },
  prompts: { method: 'prompts/list', capability: 'prompts' },
  resources: { method: 'resources/list', capability: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', capability: 'resources' },
};

/** A server that pages forever is cut off here. */
const MAX_PAGES = 1000;

export function emptyCatalog(): UpstreamCatalog {
  return { tools: [], prompts: [], resources: [], resourceTemplates: [] };
}

/** Lists the given kinds in full, following every page. Kinds the server lacks are empty. */
export async function fetchCatalog(
  ask: Ask,
  capabilities: ServerCapabilities | undefined,
  kinds: readonly CatalogKind[] = CATALOG_KINDS,
): Promise<UpstreamCatalog> {
  const catalog = emptyCatalog();
  await Promise.all(
    kinds.map(async (kind) => {
      const { method, capability } = LISTS[kind];
      if (!capabilities?.[capability]) return;
      (catalog[kind] as unknown[]) = await listAll(ask, method, kind);
    }),
  );
  // Matched against once the catalog is merged, synchronously: the matcher is loaded now, when there is one to match.
  if (catalog.resourceTemplates.length > 0) await loadTemplates();
  return catalog;
}

async function listAll(ask: Ask, method: string, key: string): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await ask(method, cursor === undefined ? {} : { cursor });
    const list = result[key];
    if (Array.isArray(list)) items.push(...list);
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return items;
}
