// MCP Apps (SEP-1865) as the proxy reads it: its names and its reading of a tool's _meta.ui held to
// @modelcontextprotocol/ext-apps' own (the proxy does not load that package at run time), which clients host apps
// (both eras), and what of a result the pipeline may rewrite for them.
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import {
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID, getUiCapability } from '@modelcontextprotocol/ext-apps/server';
import { APP_MIME_TYPE, isAppOnly, UI_EXTENSION_ID, viewOf } from '../../src/protocol/apps.js';
import { envelopeOf } from '../../src/protocol/envelope.js';
import { rewritableFor, toolForAppHosts, withViewerHint } from '../../src/relay/apps.js';
import { hostsApps } from '../../src/relay/client-capabilities.js';

const tool = (meta?: Record<string, unknown>): Tool =>
  ({ name: 't', inputSchema: { type: 'object' }, ...(meta ? { _meta: meta } : {}) }) as Tool;
const UI = { extensions: { [UI_EXTENSION_ID]: { mimeTypes: [APP_MIME_TYPE] } } };

describe('the names and readers agree with @modelcontextprotocol/ext-apps', () => {
  test('extension id and MIME type', () => {
    expect(UI_EXTENSION_ID).toBe(EXTENSION_ID);
    expect(APP_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
  });

  test("a tool's view, in the nested and the deprecated flat form", () => {
    for (const meta of [
      { ui: { resourceUri: 'ui://a/view' } },
      { 'ui/resourceUri': 'ui://a/flat' },
      { ui: { visibility: ['app'] } },
      {},
    ]) {
      expect(viewOf(tool(meta))).toBe(getToolUiResourceUri(tool(meta)));
    }
    expect(viewOf(tool())).toBeUndefined();
    // ext-apps throws on a URI of another scheme; the proxy takes it for no view.
    expect(viewOf(tool({ ui: { resourceUri: 'https://example.com/view' } }))).toBeUndefined();
  });

  test('app-only tools', () => {
    for (const visibility of [['app'], ['model'], ['model', 'app'], undefined])
      expect(isAppOnly(tool({ ui: { visibility } }))).toBe(isToolVisibilityAppOnly(tool({ ui: { visibility } })));
    expect(isAppOnly(tool())).toBe(false);
  });

  test('a host of MCP Apps declares the extension with the MIME type of views', () => {
    expect(hostsApps(UI)).toBe(true);
    expect(getUiCapability(UI)).toEqual({ mimeTypes: [APP_MIME_TYPE] });
    expect(hostsApps({})).toBe(false);
    expect(hostsApps(undefined)).toBe(false);
    expect(hostsApps({ extensions: { [UI_EXTENSION_ID]: {} } })).toBe(false);
    expect(hostsApps({ extensions: { [UI_EXTENSION_ID]: { mimeTypes: ['text/html+skybridge'] } } })).toBe(false);
  });

  test('a 2026-07-28 client declares it in the envelope of each request', () => {
    const meta = { 'io.modelcontextprotocol/clientCapabilities': UI };
    expect(hostsApps(envelopeOf(meta).clientCapabilities)).toBe(true);
    expect(hostsApps(envelopeOf({}).clientCapabilities)).toBe(false);
  });
});

describe('what the pipeline may rewrite, by tool and client', () => {
  const linked = tool({ ui: { resourceUri: 'ui://a/view' } });
  const appOnly = tool({ ui: { resourceUri: 'ui://a/view', visibility: ['app'] } });

  test('for a host of MCP Apps: the content of a linked tool, nothing of an app-only one, all of others', () => {
    expect(rewritableFor(linked, true)).toBe('content');
    expect(rewritableFor(appOnly, true)).toBe('nothing');
    expect(rewritableFor(tool({ ui: { visibility: ['model', 'app'] } }), true)).toBe('all');
    expect(rewritableFor(tool(), true)).toBe('all');
    expect(rewritableFor(undefined, true)).toBe('all');
  });

  test('for any other client: everything, as before', () => {
    for (const t of [linked, appOnly, tool()]) expect(rewritableFor(t, false)).toBe('all');
  });
});

describe('tools as a host of MCP Apps is shown them', () => {
  const shown = (t: Tool): Tool => ({ ...t, outputSchema: { type: 'object', description: 'widened' } });

  test("a tool with a view of its own, or an app-only one, is the upstream's definition", () => {
    const linked = tool({ ui: { resourceUri: 'ui://a/view' } });
    const appOnly = tool({ ui: { visibility: ['app'] } });
    expect(toolForAppHosts(linked, shown(linked), 'ui://mcp-offload/artifact-viewer')).toBe(linked);
    expect(toolForAppHosts(appOnly, shown(appOnly), undefined)).toBe(appOnly);
  });

  test('a tool the config links to the viewer gets it in _meta.ui, the rest of its _meta kept', () => {
    const plain = tool({ other: 1, ui: { visibility: ['model', 'app'] } });
    expect(toolForAppHosts(plain, shown(plain), 'ui://mcp-offload/artifact-viewer')._meta).toEqual({
      other: 1,
      ui: { visibility: ['model', 'app'], resourceUri: 'ui://mcp-offload/artifact-viewer' },
    });
    expect(toolForAppHosts(plain, shown(plain), undefined)).toEqual(shown(plain));
  });
});

test("the viewer's line names each stored artifact, and nothing is added to a result that stored none", () => {
  const result = (uris: string[]): CallToolResult => ({
    content: [{ type: 'text', text: 'summary' }],
    _meta: { 'mcp-offload/artifacts': uris.map((uri) => ({ uri })) },
  });
  expect(withViewerHint(result(['artifact://a/x.png']), 'artifact_view').content.at(-1)).toEqual({
    type: 'text',
    text: '[mcp-offload: to show it to the user, call artifact_view with {"uri": "artifact://a/x.png"}]',
  });
  expect(withViewerHint(result(['artifact://a/x.png', 'artifact://a/y.pdf']), 'show').content.at(-1)).toEqual({
    type: 'text',
    text: '[mcp-offload: to show them to the user, call show with the uri of each: artifact://a/x.png, artifact://a/y.pdf]',
  });
  const none: CallToolResult = { content: [{ type: 'text', text: 'x' }] };
  expect(withViewerHint(none, 'artifact_view')).toBe(none);
  expect(withViewerHint(result([]), 'artifact_view').content).toHaveLength(1);
});
