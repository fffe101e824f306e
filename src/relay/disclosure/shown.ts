import type { Tool } from '@modelcontextprotocol/server';
import { BUILTIN_SERVER } from '../interceptors/artifacts.js';
import type { Offload } from '../offload.js';
import type { Session } from '../session.js';
import type { IndexedTool, ToolIndex } from './tool-index.js';

/** The tools a client would be listed (the proxy's own first) and the index over them. */
export interface ShownTools {
  readonly tools: readonly Tool[];
  /**
   * The index, built on the first search, describe or call_tool: in `auto` a client under the budget is listed the
   * tools and never searches. MiniSearch and the stemmer are loaded then too, not by every proxy at start.
   */
  index(): Promise<ToolIndex>;
}

const cache = new WeakMap<readonly Tool[], ShownTools>();

/**
 * What a session's client would see in `all`, indexed for search. The catalog makes a new list whenever an
 * upstream's list changes (list_changed, a reconnect, a login), so the index, kept per list, follows it.
 */
export function shownTools(offload: Offload, session: Session, hostsApps: boolean): ShownTools {
  const { catalog } = session.view;
  const upstreamTools = hostsApps ? catalog.appHostTools : catalog.snapshot.tools;
  let shown = cache.get(upstreamTools);
  if (!shown) {
    const own = offload.toolsFor(hostsApps);
    const tools = [...own, ...upstreamTools];
    const ownNames = new Set(own.map((t) => t.name));
    const entries: IndexedTool[] = tools.map((tool) => ({
      name: tool.name,
      server: ownNames.has(tool.name) ? BUILTIN_SERVER : (catalog.tool(tool.name)?.upstream.name ?? ''),
      tool,
    }));
    let index: Promise<ToolIndex> | undefined;
    shown = {
      tools,
      // A failure is not kept: the next search tries again.
      index: () =>
        (index ??= import('./tool-index.js')
          .then(({ ToolIndex }) => new ToolIndex(entries))
          .catch((error: unknown) => {
            index = undefined;
            throw error;
          })),
    };
    cache.set(upstreamTools, shown);
  }
  return shown;
}
