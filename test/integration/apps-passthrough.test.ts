// MCP Apps (SEP-1865) through the proxy, over stdio (the built dist/cli.js) in front of a server with a view
// (app-server.mjs): for a client that hosts MCP Apps, a linked tool's structuredContent is the view's data and arrives
// byte for byte while its content is compacted; an app-only tool's result, ui:// resources and the tools' definitions
// pass as written; the artifact viewer is offered. For any other client, today's behavior. Both eras: a 2025 client
// declares the extension in `initialize`, a 2026-07-28 client in each request's envelope.
import { startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { FIXTURES, NODE, waitFor } from '../helpers/fixtures.js';
import { LEGACY_PROTOCOL } from '../helpers/raw-session.js';
import { DASHBOARD_STRUCTURED, DASHBOARD_TEXT, REFRESH_RESULT, TOOLS, VIEW_READ } from '../fixtures/app-payloads.mjs';

const MODERN = '2026-07-28';
const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
const VIEWER = 'ui://mcp-offload/artifact-viewer';

interface Answer {
  result: {
    content?: { type: string; text?: string; uri?: string }[];
    structuredContent?: unknown;
    tools?: { name: string; outputSchema?: unknown; _meta?: { ui?: { resourceUri?: string } } }[];
    resources?: { uri: string }[];
    contents?: { uri: string; mimeType: string; text: string }[];
    capabilities?: { extensions?: Record<string, unknown> };
  };
}

/** A proxy over stdio and the lines it answers, as written. */
class Line {
  private id = 0;
  constructor(readonly cli: CliProcess) {}

  /** Writes a request and resolves with the proxy's answer line for it, as written. */
  async raw(method: string, params: object): Promise<string> {
    const id = ++this.id;
    this.cli.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const answered = `{"jsonrpc":"2.0","id":${id},`;
    const line = await waitFor(
      () => {
        const out = this.cli.stdout();
        // Whole lines only: the last one may still be on its way.
        return out
          .slice(0, out.lastIndexOf('\n'))
          .split('\n')
          .find((line) => line.startsWith(answered));
      },
      15_000,
      20,
      `the answer to ${method}`,
    );
    return line!;
  }

  async request(method: string, params: object): Promise<Answer> {
    return JSON.parse(await this.raw(method, params)) as Answer;
  }
}

/** A proxy in front of app-server.mjs, introduced by a 2025 client with `capabilities`. */
async function legacyProxy(capabilities: object): Promise<{ line: Line; init: Answer }> {
  const line = new Line(startCli(['--log-level', 'warn', '--name', 'dashboard', '--', NODE, FIXTURES.app]));
  const init = await line.request('initialize', {
    protocolVersion: LEGACY_PROTOCOL,
    capabilities,
    clientInfo: { name: 'host', version: '1' },
  });
  line.cli.child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return { line, init };
}

const texts = (answer: Answer) => (answer.result.content ?? []).flatMap((b) => (b.type === 'text' ? [b.text!] : []));
const names = (answer: Answer) => answer.result.tools!.map((t) => t.name);

afterAll(stopAllCli);

describe('a 2025 client that hosts MCP Apps', () => {
  let line: Line;
  let init: Answer;
  beforeAll(async () => ({ line, init } = await legacyProxy(UI)));

  test("a linked tool's structuredContent arrives byte for byte; its content is compacted and names the viewer", async () => {
    const written = await line.raw('tools/call', { name: 'dashboard', arguments: {} });
    expect(written).toContain(`"structuredContent":${DASHBOARD_STRUCTURED}`);
    const answer = JSON.parse(written) as Answer;
    const [summary, ...rest] = texts(answer);
    expect(summary!.length).toBeLessThan(DASHBOARD_TEXT.length / 10);
    expect(summary).toMatch(/artifact:\/\/dashboard\/dashboard_[0-9a-f]{12}\.json/);
    expect(answer.result.content).toContainEqual(expect.objectContaining({ type: 'resource_link' }));
    // The chart inside the text is a PNG of its own: two artifacts, and one line that says how to show them.
    expect(rest.at(-1)).toMatch(
      /^\[mcp-offload: to show them to the user, call artifact_view with the uri of each: artifact:\/\/dashboard\/dashboard_[0-9a-f]{12}\.png, artifact:\/\/dashboard\/dashboard_[0-9a-f]{12}\.json\]$/,
    );
  });

  test("an app-only tool's result passes whole, as written", async () => {
    expect(await line.raw('tools/call', { name: 'dashboard_refresh', arguments: {} })).toContain(
      `"result":${REFRESH_RESULT}`,
    );
  });

  test('a ui:// resource is read as written', async () => {
    expect(await line.raw('resources/read', { uri: 'ui://dashboard/view.html' })).toContain(`"result":${VIEW_READ}`);
  });

  test("tools/list: the upstream's app tools as it defined them, and the viewer's tool linked to its view", async () => {
    const answer = await line.request('tools/list', {});
    expect(names(answer)).toEqual([
      'artifact_list',
      'artifact_read',
      'artifact_view',
      'dashboard',
      'dashboard_refresh',
      'report',
      'chart',
    ]);
    const [dashboard, refresh] = TOOLS;
    expect(answer.result.tools!.find((t) => t.name === 'dashboard')).toEqual(dashboard);
    expect(answer.result.tools!.find((t) => t.name === 'dashboard_refresh')).toEqual(refresh);
    expect(answer.result.tools!.find((t) => t.name === 'artifact_view')!._meta).toEqual({
      ui: { resourceUri: VIEWER },
    });
  });

  test('resources/list offers the view and the viewer; the viewer is a self-contained page of the app profile', async () => {
    const uris = (await line.request('resources/list', {})).result.resources!.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['ui://dashboard/view.html', VIEWER]));
    const [page] = (await line.request('resources/read', { uri: VIEWER })).result.contents!;
    expect(page!.mimeType).toBe('text/html;profile=mcp-app');
    expect(page!.text).toMatch(/^<!doctype html>/i);
    expect(page!.text).toContain(
      '<script type="application/json" id="viewer-config">{"readTool":"artifact_read"}</script>',
    );
    // Nothing is fetched: no script, style or image comes from elsewhere.
    expect(page!.text).not.toMatch(/<(script|link|img)\b[^>]*\b(src|href)=/i);
  });

  test("the upstream's declared extensions reach the client", () => {
    expect(init.result.capabilities!.extensions).toEqual({ 'io.modelcontextprotocol/ui': {} });
  });
});

describe('a 2025 client that does not host MCP Apps: as before', () => {
  let line: Line;
  beforeAll(async () => ({ line } = await legacyProxy({})));

  test("a linked tool's structuredContent goes through the pipeline (its payloads stored), without the viewer's line", async () => {
    const written = await line.raw('tools/call', { name: 'dashboard', arguments: {} });
    expect(written).not.toContain(DASHBOARD_STRUCTURED);
    const answer = JSON.parse(written) as Answer;
    expect(JSON.stringify(answer.result.structuredContent)).toContain('artifact://');
    expect(texts(answer).join('\n')).not.toContain('artifact_view');
  });

  test('an app-only tool is listed and its result compacted, as any tool; no viewer is offered', async () => {
    expect(await line.raw('tools/call', { name: 'dashboard_refresh', arguments: {} })).not.toContain(REFRESH_RESULT);
    expect(names(await line.request('tools/list', {}))).toEqual([
      'artifact_list',
      'artifact_read',
      'dashboard',
      'dashboard_refresh',
      'report',
      'chart',
    ]);
    const uris = (await line.request('resources/list', {})).result.resources!.map((r) => r.uri);
    expect(uris).toContain('ui://dashboard/view.html');
    expect(uris).not.toContain(VIEWER);
    // Nor read: the URI is nobody's for this client, and goes to the upstream as any other would.
    expect(JSON.parse(await line.raw('resources/read', { uri: VIEWER })).error).toEqual(
      expect.objectContaining({ message: 'Resource not found' }),
    );
  });

  test('a ui:// resource is read as written, for any client', async () => {
    expect(await line.raw('resources/read', { uri: 'ui://dashboard/view.html' })).toContain(`"result":${VIEW_READ}`);
  });
});

describe('a 2026-07-28 client declares itself with each request', () => {
  let line: Line;
  const envelope = (capabilities: object) => ({
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'host', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  });

  beforeAll(async () => {
    line = new Line(startCli(['--log-level', 'warn', '--name', 'dashboard', '--', NODE, FIXTURES.app]));
    await line.request('server/discover', { _meta: envelope({}) });
  });

  test('a request that declares the extension gets the view its data as written; one that does not, as before', async () => {
    const hosted = await line.raw('tools/call', { name: 'dashboard', arguments: {}, _meta: envelope(UI) });
    expect(hosted).toContain(`"structuredContent":${DASHBOARD_STRUCTURED}`);
    const plain = await line.raw('tools/call', { name: 'dashboard', arguments: {}, _meta: envelope({}) });
    expect(plain).not.toContain(DASHBOARD_STRUCTURED);
  });

  test('the viewer is listed for the requests that declare the extension only', async () => {
    expect(names(await line.request('tools/list', { _meta: envelope(UI) }))).toContain('artifact_view');
    expect(names(await line.request('tools/list', { _meta: envelope({}) }))).not.toContain('artifact_view');
  });
});
