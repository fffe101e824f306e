import { jsonText } from '../wire/json.js';
import type { Upstream } from '../upstreams/upstream.js';
import type { Catalog, CatalogSnapshot } from './catalog.js';

const LIST_CHANGED: Record<keyof CatalogSnapshot, string> = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
  resourceTemplates: 'notifications/resources/list_changed',
};

/**
 * What a session sees: the connections that serve it, one per configured server (shared ones and its own), and the
 * catalog they make. Sessions served only by shared connections share one view, so a list change is merged once.
 */
export class SessionView {
  private readonly lists = new Map<keyof CatalogSnapshot, string>();

  constructor(
    readonly upstreams: readonly Upstream[],
    readonly catalog: Catalog,
  ) {
    for (const key of Object.keys(LIST_CHANGED) as (keyof CatalogSnapshot)[]) this.lists.set(key, '[]');
  }

  serves(upstream: Upstream): boolean {
    return this.upstreams.includes(upstream);
  }

  /** The connection serving `uri`: the one that listed it or has a matching template, else the one with resources. */
  resourceServer(uri: string): Upstream | undefined {
    const owner = this.catalog.resourceOwner(uri);
    if (owner) return owner;
    const withResources = this.upstreams.filter((u) => u.capabilities?.resources);
    return withResources.length === 1 ? withResources[0] : undefined;
  }

  /** The list_changed notification that tells a client of a change of this kind. */
  static listChangedOf(kind: keyof CatalogSnapshot): string {
    return LIST_CHANGED[kind];
  }

  /** Merges the lists again; answers the list_changed notifications whose list really changed. */
  refresh(): Set<string> {
    this.catalog.rebuild(this.upstreams);
    const changed = new Set<string>();
    for (const key of Object.keys(LIST_CHANGED) as (keyof CatalogSnapshot)[]) {
      const json = jsonText(this.catalog.snapshot[key]);
      if (this.lists.get(key) !== json) changed.add(LIST_CHANGED[key]);
      this.lists.set(key, json);
    }
    return changed;
  }
}
