// The built-in ABP backend through the whole gateway, in real headless Chromium: tools, connection, and
// every kind of output the fixture app produces ending up as an artifact with the seed's summary.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../../src/version.js';
import { REPORT_CSV, SAMPLE_PNG, startAbpServer, chromiumProcesses, type AbpServer } from '../helpers/abp-server.js';
import {
  call,
  jsonOf,
  resourceLinks,
  savedBytes,
  savedPaths,
  startAbpGateway,
  textBlocks,
  waitFor,
  type AbpGateway,
} from '../helpers/abp-gateway.js';

const STATIC = ['abp_call', 'abp_connect', 'abp_disconnect', 'abp_render_to_pdf', 'abp_status'];
/** The gateway's own artifact tools sit next to the backend's. */
const BEFORE_CONNECT = [...STATIC, 'artifact_list', 'artifact_read'];

let app: AbpServer;
let proxy: AbpGateway;
let listChanged = 0;

beforeAll(async () => {
  app = await startAbpServer();
  proxy = await startAbpGateway({
    // A user's rules over the preset: these two tools pass their JSON through untouched.
    rules: [
      { server: 'browser', tool: 'abp_image_render', settings: { mode: 'passthrough' } },
      {
        server: 'browser',
        tool: 'abp_export_pdf',
        settings: { mode: 'auto', minBinaryLength: 1_000_000, inlineLimit: 1_000_000 },
      },
    ],
    setup: (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++),
  });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await app?.close();
  expect(chromiumProcesses()).toEqual([]);
});

const toolNames = async () => ((await proxy.client.listTools()).tools as Tool[]).map((t) => t.name).sort();

describe('before connecting', () => {
  test('only the static tools are listed, each with an optional session argument', async () => {
    const { tools } = await proxy.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(BEFORE_CONNECT);
    for (const tool of tools.filter((t) => t.name.startsWith('abp_')))
      expect(tool.inputSchema.properties).toHaveProperty('session');
  });

  test('a call before connecting is a clear error, and status says nothing is connected', async () => {
    const result = await call(proxy.client, 'abp_call', { capability: 'text.reverse', params: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(textBlocks(result).join('')).toMatch(
      /^NOT_CONNECTED: no ABP app is connected in session "default"; call abp_connect first/,
    );
    expect(textBlocks(await call(proxy.client, 'abp_status')).join('')).toMatch(/^No ABP app is connected/);
  });

  test('abp_connect wants exactly one target', async () => {
    const none = await call(proxy.client, 'abp_connect', {});
    expect(none.isError).toBe(true);
    expect(textBlocks(none)[0]).toMatch(/give one of "url".*"extensionPath".*"extensionId"/);
    const two = await call(proxy.client, 'abp_connect', { url: app.url, extensionPath: '/tmp' });
    expect(textBlocks(two)[0]).toMatch(/give only one of .* \(got "url" and "extensionPath"\)/);
  });

  test('a failed connect is a clear error, and leaves no browser behind', async () => {
    const result = await call(proxy.client, 'abp_connect', { url: `${app.url}/variants/no-link.html` });
    expect(result.isError).toBe(true);
    expect(textBlocks(result)[0]).toMatch(/^Connection failed: .*abp-manifest/);
    expect(chromiumProcesses()).toEqual([]);
    expect(await toolNames()).toEqual(BEFORE_CONNECT);
  });
});

describe('connected to the fixture app', () => {
  beforeAll(async () => {
    const before = listChanged;
    const result = await call(proxy.client, 'abp_connect', { url: `${app.url}/` });
    expect(result.isError).toBeFalsy();
    expect(textBlocks(result)[0]).toMatch(
      /^Connected to ABP fixture app 1\.0\.0 at http:\/\/127\.0\.0\.1:\d+\/ \(browser session "default"/,
    );
    // The control tools' answers stay inline (the preset leaves them out of file mode).
    expect(savedPaths(result)).toEqual([]);
    await waitFor(() => listChanged > before);
  }, 60_000);

  test('each available capability is a tool; the manifest-only one is not', async () => {
    const names = await toolNames();
    expect(names).toEqual(
      expect.arrayContaining([...STATIC, 'abp_text_reverse', 'abp_export_pdf', 'abp_session_info', 'abp_task_slow']),
    );
    expect(names).not.toContain('abp_manifest_only');
    const reverse = (await proxy.client.listTools()).tools.find((t) => t.name === 'abp_text_reverse')!;
    expect(reverse.description).toContain('Reverse a string (runtime)');
    expect(reverse.inputSchema).toMatchObject({
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string' }, session: { type: 'string' } },
    });
  });

  test('the app was initialized with our identity and features', async () => {
    const received = JSON.parse(
      savedBytes(await call(proxy.client, 'abp_session_info', {})).toString('utf8'),
    ) as Record<string, unknown>;
    expect(received).toMatchObject({
      agent: { name: 'mcp-offload', version: VERSION },
      features: { notifications: true, progress: true, elicitation: true },
      protocolVersion: '0.1',
      initializeCount: 1,
    });
  });

  test('status names the app, the session and its capabilities', async () => {
    const text = textBlocks(await call(proxy.client, 'abp_status'))[0]!;
    expect(text).toMatch(
      /^Session "default": connected\n {2}App: ABP fixture app 1\.0\.0 \(dev\.mcp-offload\.fixture\)/,
    );
    expect(text).toMatch(/ABP session: fixture-/);
    expect(text).toContain('text.reverse → abp_text_reverse');
    expect(text).toContain('Unavailable: manifest.only');
  });

  test('JSON data is saved as a .json file, through abp_call and through the dynamic tool alike', async () => {
    for (const result of [
      await call(proxy.client, 'abp_call', { capability: 'text.reverse', params: { text: 'abc' } }),
      await call(proxy.client, 'abp_text_reverse', { text: 'abc' }),
    ]) {
      expect(result.isError).toBeFalsy();
      const [summary] = textBlocks(result);
      expect(summary).toMatch(/^File saved: .+\.json\nType: application\/json\nSize: \d+ bytes/);
      expect(JSON.parse(savedBytes(result).toString('utf8'))).toEqual({ reversed: 'cba', length: 3 });
      expect(resourceLinks(result)).toEqual([
        expect.objectContaining({
          uri: expect.stringMatching(/^artifact:\/\/browser\//),
          mimeType: 'application/json',
        }),
      ]);
    }
  });

  test('a PNG nested as BinaryData is decoded, its siblings become the Metadata line', async () => {
    const saved = await call(proxy.client, 'abp_call', {
      capability: 'image.render',
      params: { width: 20, height: 10 },
    });
    const [summary] = textBlocks(saved);
    expect(summary).toMatch(
      /^File saved: .+\.png\nType: image\/png\nSize: \d+ bytes\nMetadata: \{"width":20,"height":10\}\nDimensions: 20x10/,
    );
    // The same call through the tool a rule passes through shows what the app sent.
    const raw = jsonOf(await call(proxy.client, 'abp_image_render', { width: 20, height: 10 }));
    const image = raw.image as { content: string; mimeType: string };
    expect(image.mimeType).toBe('image/png');
    expect(savedBytes(saved).equals(Buffer.from(image.content, 'base64'))).toBe(true);
  });

  test('a PDF returned as base64 is saved as the very bytes the app encoded', async () => {
    const saved = await call(proxy.client, 'abp_call', { capability: 'export.pdf', params: { title: 'Hello' } });
    expect(textBlocks(saved)[0]).toMatch(
      /^File saved: .+\.pdf\nType: application\/pdf\nSize: \d+ bytes\nMetadata: \{"pageCount":1\}/,
    );
    const raw = jsonOf(await call(proxy.client, 'abp_export_pdf', { title: 'Hello' }));
    const document = raw.document as { content: string };
    expect(savedBytes(saved).equals(Buffer.from(document.content, 'base64'))).toBe(true);
    expect(savedBytes(saved).subarray(0, 5).toString()).toBe('%PDF-');
  });

  test('HTML sent as utf-8 text is saved as the .html file it is, every character intact, its siblings as metadata', async () => {
    const saved = await call(proxy.client, 'abp_call', { capability: 'export.html' });
    expect(textBlocks(saved)[0]).toMatch(
      /^File saved: .+\.html\nType: text\/html\nSize: \d+ bytes\nMetadata: \{"title":"Export"\}/,
    );
    expect(savedBytes(saved).toString('utf8')).toBe(
      '<!doctype html><html><head><meta charset="utf-8"><title>Export</title></head><body><p>Grüße ✓</p></body></html>',
    );
  });

  test("window.print() becomes a PDF artifact; the app's answer is its metadata", async () => {
    const saved = await call(proxy.client, 'abp_export_print', {});
    expect(textBlocks(saved)[0]).toMatch(
      /^File saved: .+\.pdf\nType: application\/pdf\nSize: \d+ bytes.*\nMetadata: \{"data":\{"printed":true\}\}/,
    );
    expect(savedBytes(saved).subarray(0, 5).toString()).toBe('%PDF-');
  });

  test('browser downloads (a blob and a server attachment) become artifacts', async () => {
    const blob = await call(proxy.client, 'abp_call', { capability: 'export.download' });
    expect(textBlocks(blob)[0]).toMatch(/^File saved: .+\.csv\nType: text\/csv/);
    expect(savedBytes(blob).toString('utf8')).toBe('id,value\n1,alpha\n2,beta\n');
    const served = await call(proxy.client, 'abp_call', {
      capability: 'export.download',
      params: { source: 'server' },
    });
    expect(savedBytes(served).toString('utf8')).toBe(REPORT_CSV);
  });

  test("a BinaryDataReference is downloaded from the app's server", async () => {
    const saved = await call(proxy.client, 'abp_file_reference', {});
    expect(textBlocks(saved)[0]).toMatch(
      /^File saved: .+\.png\nType: image\/png\nSize: \d+ bytes\nMetadata: \{"note":"served by the test server"\}/,
    );
    expect(savedBytes(saved).equals(SAMPLE_PNG)).toBe(true);
  });

  test('dialogs handled during a call are reported in the saved document', async () => {
    const saved = await call(proxy.client, 'abp_call', { capability: 'dialogs.all' });
    const doc = JSON.parse(savedBytes(saved).toString('utf8')) as Record<string, unknown>;
    expect(doc).toEqual({
      confirm: true,
      prompt: null,
      handledDialogs: [
        { type: 'alert', message: 'Fixture alert', action: 'dismissed' },
        { type: 'confirm', message: 'Fixture confirm?', action: 'accepted' },
        { type: 'prompt', message: 'Fixture prompt', action: 'dismissed' },
      ],
    });
    expect(textBlocks(saved)[0]).toContain('handledDialogs');
  });

  test('arguments that do not fit the input schema are rejected before the call, every problem named', async () => {
    const result = await call(proxy.client, 'abp_text_reverse', { text: 5 });
    expect(result.isError).toBe(true);
    expect(textBlocks(result)[0]).toBe('INVALID_PARAMS: Invalid arguments for text.reverse: text must be string');
    const missing = await call(proxy.client, 'abp_call', {
      capability: 'image.render',
      params: { width: 'wide', height: 1.5 },
    });
    expect(textBlocks(missing)[0]).toBe(
      'INVALID_PARAMS: Invalid arguments for image.render: width must be integer; height must be integer',
    );
  });

  test('abp_render_to_pdf renders HTML to a PDF artifact', async () => {
    const saved = await call(proxy.client, 'abp_render_to_pdf', { html: '<h1>Rendered</h1>' });
    expect(textBlocks(saved)[0]).toMatch(/^File saved: .+\.pdf\nType: application\/pdf/);
    expect(readFileSync(savedPaths(saved)[0]!).subarray(0, 5).toString()).toBe('%PDF-');
  });

  test('abp_disconnect closes the browser and removes the dynamic tools', async () => {
    const before = listChanged;
    const result = await call(proxy.client, 'abp_disconnect');
    expect(textBlocks(result)[0]).toBe('Disconnected session "default".');
    await waitFor(() => listChanged > before);
    expect(await toolNames()).toEqual(BEFORE_CONNECT);
    expect(chromiumProcesses()).toEqual([]);
    expect(textBlocks(await call(proxy.client, 'abp_disconnect'))[0]).toBe('Session "default" was not connected.');
  });
});
