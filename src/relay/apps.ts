import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { ARTIFACTS_META_KEY } from '../pipeline/pipeline.js';
import { isAppOnly, viewOf } from '../protocol/apps.js';
import type { Upstream } from '../upstreams/upstream.js';

/**
 * What of a tool's result the pipeline may rewrite for the client that called it (MCP Apps, SEP-1865):
 *
 * - `all`: any client that does not host MCP Apps, and tools without a view of their own: today's behavior.
 * - `content`: a tool that links its own view, called by a host of MCP Apps. `structuredContent` is the view's data
 *   and reaches the host exactly as the upstream sent it; `content` is what the model reads, compacted as usual.
 * - `nothing`: an app-only tool (`_meta.ui.visibility` without `"model"`) called by such a host: only its view reads
 *   the result, so there is nothing to keep out of a model's context.
 */
export type Rewritable = 'all' | 'content' | 'nothing';

export function rewritableFor(tool: Tool | undefined, hostsApps: boolean): Rewritable {
  if (!hostsApps || !tool) return 'all';
  if (isAppOnly(tool)) return 'nothing';
  return viewOf(tool) !== undefined ? 'content' : 'all';
}

/** The upstream's own definition of its tool `name` (unprefixed), as it listed it. */
export function definitionOf(upstream: Upstream, name: string): Tool | undefined {
  return upstream.catalog.tools.find((tool) => tool.name === name);
}

/**
 * A tool as a host of MCP Apps is shown it. A tool with a view of its own, or an app-only one, is the upstream's
 * definition as written (apart from its name): the pipeline leaves for this host what its output schema describes,
 * so the schema is not widened. A tool the config links to the proxy's artifact viewer gets the viewer in its
 * `_meta.ui`. Anything else is `shown`, as every other client sees it.
 */
export function toolForAppHosts(tool: Tool, shown: Tool, viewer: string | undefined): Tool {
  if (viewOf(tool) !== undefined || isAppOnly(tool)) return tool;
  if (viewer === undefined) return shown;
  const meta = shown._meta ?? {};
  const ui = meta.ui !== null && typeof meta.ui === 'object' ? meta.ui : {};
  return { ...shown, _meta: { ...meta, ui: { ...ui, resourceUri: viewer } } };
}

/** The result with `structuredContent` left out: what the pipeline gets when only `content` may change. */
export function withoutStructuredContent(result: CallToolResult): CallToolResult {
  const { structuredContent: _view, ...rest } = result;
  return rest as CallToolResult;
}

/**
 * A processed result for a host of MCP Apps, with a last line that tells the model how to show the user what was
 * stored: `viewTool` (artifact_view) with each artifact's URI. A result that stored nothing is returned as it is.
 */
export function withViewerHint(result: CallToolResult, viewTool: string): CallToolResult {
  const stored = result._meta?.[ARTIFACTS_META_KEY];
  if (!Array.isArray(stored) || stored.length === 0) return result;
  const uris = stored.map((artifact: { uri?: unknown }) => String(artifact.uri));
  const text =
    uris.length === 1
      ? `[mcp-offload: to show it to the user, call ${viewTool} with {"uri": "${uris[0]}"}]`
      : `[mcp-offload: to show them to the user, call ${viewTool} with the uri of each: ${uris.join(', ')}]`;
  return { ...result, content: [...result.content, { type: 'text', text }] };
}
