/**
 * MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension): a tool links a view, a `ui://` HTML resource, in
 * its definition's `_meta.ui`; a host that declares the extension renders the view and hands it the tool's
 * `structuredContent`, while the model reads `content`. These are the names and the reading of a tool's `_meta.ui`
 * the proxy needs; the values are those of `@modelcontextprotocol/ext-apps` (test/unit/apps.test.ts holds them to
 * it), kept here so the proxy does not load that package at run time.
 */

/** The extension's id in `capabilities.extensions`. */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/** The MIME type of a view's HTML (`text/html;profile=mcp-app`). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The scheme of views. */
export const UI_SCHEME = 'ui://';

/** The deprecated flat key a tool may still link its view with (`_meta["ui/resourceUri"]`). */
const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** What a tool definition looks like to these readers (an upstream's tool, as listed). */
interface ToolLike {
  _meta?: Record<string, unknown> | undefined;
}

/** The `ui://` view a tool links, by `_meta.ui.resourceUri` or the deprecated flat key; undefined for none. */
export function viewOf(tool: ToolLike | undefined): string | undefined {
  const meta = tool?._meta;
  if (!isObject(meta)) return undefined;
  const ui = meta.ui;
  const uri = isObject(ui) && typeof ui.resourceUri === 'string' ? ui.resourceUri : meta[LEGACY_RESOURCE_URI_KEY];
  return typeof uri === 'string' && uri.startsWith(UI_SCHEME) ? uri : undefined;
}

/** Whether a tool is for views only (`_meta.ui.visibility` without `"model"`): a model never reads its results. */
export function isAppOnly(tool: ToolLike | undefined): boolean {
  const ui = tool?._meta?.ui;
  if (!isObject(ui) || !Array.isArray(ui.visibility)) return false;
  return !ui.visibility.includes('model');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
