// AbpBrowserSession against the fixture web app in real headless Chromium: connect, every kind of output,
// errors, dialogs, PDF rendering, disconnect.
import { existsSync } from 'node:fs';
import { imageSize } from 'image-size';
import { hasBinaryData } from '../../src/upstreams/abp/session.js';
import { REPORT_CSV, SAMPLE_PNG, chromiumProcesses, startAbpServer, type AbpServer } from '../helpers/abp-server.js';
import { callOptions, newSession } from '../helpers/abp-session.js';
import { waitFor } from '../helpers/fixtures.js';

let server: AbpServer;
const { session, events } = newSession();

beforeAll(async () => {
  server = await startAbpServer();
  await session.connect({ url: `${server.url}/` });
}, 60_000);

afterAll(async () => {
  await session.disconnect();
  await server.close();
});

/** The first page's size in points, from the PDF's MediaBox. */
function pageSize(pdf: Buffer): [number, number] {
  const box = /MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(pdf.toString('latin1'));
  if (!box) throw new Error('no MediaBox in the PDF');
  return [Math.round(Number(box[1])), Math.round(Number(box[2]))];
}

/** The app's answer, read field by field as the fixture app wrote it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fixture app's answers are plain JSON of any shape
type AppData = Record<string, any>;
const data = (outcome: { response: { data?: unknown } }): AppData => outcome.response.data as AppData;

describe('connect', () => {
  it('reports the app, the session and the merged capabilities', () => {
    const info = session.info!;
    expect(session.connected).toBe(true);
    expect(info.pageUrl).toBe(`${server.url}/`);
    expect(info.sessionId).toMatch(/^fixture-/);
    expect(info.app).toEqual({ id: 'dev.mcp-offload.fixture', name: 'ABP fixture app', version: '1.0.0' });
    expect(info.manifest.app.description).toContain('ABP app can produce');
    expect(info.features).toMatchObject({
      notifications: true,
      progress: true,
      elicitation: true,
      dynamicCapabilities: true,
    });
    const byName = new Map(info.capabilities.map((c) => [c.name, c]));
    // runtime wins: its description and outputSchema replace the manifest's
    expect(byName.get('text.reverse')).toMatchObject({ description: 'Reverse a string (runtime)', available: true });
    expect(byName.get('text.reverse')!.outputSchema).toEqual({
      type: 'object',
      properties: { reversed: { type: 'string' } },
    });
    // the manifest's description stays when the runtime gives none; missing fields stay absent
    expect(byName.get('export.print')).toEqual({
      name: 'export.print',
      description: 'Print the page (window.print)',
      available: true,
    });
    // runtime-only capabilities are added, unconfirmed manifest entries are marked unavailable
    expect(byName.get('session.info')).toMatchObject({ available: true });
    expect(byName.get('manifest.only')).toMatchObject({ available: false });
  });

  it('initializes with the agent identity, protocol version and features', async () => {
    const outcome = await session.call('session.info', {}, callOptions());
    expect(data(outcome)).toEqual({
      agent: { name: 'mcp-offload-tests', version: '0.0.0' },
      features: { notifications: true, progress: true, elicitation: true },
      protocolVersion: '0.1',
      initializeCount: 1,
    });
  });
});

describe('outputs', () => {
  it('text.reverse: JSON data, nothing intercepted', async () => {
    const outcome = await session.call('text.reverse', { text: 'abc✓' }, callOptions());
    expect(outcome).toEqual({
      response: { success: true, data: { reversed: '✓cba', length: 4 } },
      outputs: [],
      dialogs: [],
    });
    expect(hasBinaryData(outcome.response.data)).toBe(false);
  });

  it('image.render: a real PNG nested as BinaryData with sibling metadata', async () => {
    const outcome = await session.call('image.render', { width: 20, height: 10 }, callOptions());
    const d = data(outcome);
    expect(d.width).toBe(20);
    expect(d.image).toMatchObject({ mimeType: 'image/png', encoding: 'base64' });
    const png = Buffer.from(d.image.content, 'base64');
    expect(imageSize(png)).toMatchObject({ type: 'png', width: 20, height: 10 });
    expect(hasBinaryData(d)).toBe(true);
  });

  it('export.print: window.print() held since load is intercepted and turned into an A4 PDF', async () => {
    const outcome = await session.call('export.print', {}, callOptions());
    expect(outcome.response).toEqual({ success: true, data: { printed: true } });
    expect(outcome.outputs).toHaveLength(1);
    const [printed] = outcome.outputs;
    expect(printed).toMatchObject({ kind: 'print', mimeType: 'application/pdf' });
    expect(printed!.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // A4 is 595.28 x 841.89 pt
    expect(pageSize(printed!.bytes)).toEqual([596, 842]);
    // the flag is per call: the next call prints nothing
    expect((await session.call('text.reverse', { text: 'x' }, callOptions())).outputs).toEqual([]);
  });

  it('export.pdf: a PDF returned as base64 BinaryData', async () => {
    const outcome = await session.call('export.pdf', { title: 'Hello' }, callOptions());
    const d = data(outcome);
    expect(d.pageCount).toBe(1);
    expect(d.document).toMatchObject({ mimeType: 'application/pdf', encoding: 'base64', filename: 'export.pdf' });
    const pdf = Buffer.from(d.document.content, 'base64');
    expect(pdf.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
    expect(pdf.toString('latin1')).toContain('(Hello) Tj');
    expect(hasBinaryData(d)).toBe(true);
    expect(outcome.outputs).toEqual([]);
  });

  it('export.html: an HTML document with utf-8 encoding', async () => {
    const d = data(await session.call('export.html', {}, callOptions()));
    expect(d.document).toMatchObject({ mimeType: 'text/html', encoding: 'utf-8', filename: 'export.html' });
    expect(d.document.content).toContain('Grüße ✓');
  });

  it('export.download: a blob download is intercepted with its bytes, name and type', async () => {
    const outcome = await session.call('export.download', {}, callOptions());
    expect(outcome.response).toEqual({ success: true, data: { started: true, filename: 'data.csv' } });
    expect(outcome.outputs).toHaveLength(1);
    expect(outcome.outputs[0]).toMatchObject({ kind: 'download', mimeType: 'text/csv', filename: 'data.csv' });
    expect(outcome.outputs[0]!.bytes.toString('utf8')).toBe('id,value\n1,alpha\n2,beta\n');
  });

  it.each([false, true])(
    'export.download: a Content-Disposition attachment from the server is intercepted too (link detached: %s)',
    async (detached) => {
      const outcome = await session.call('export.download', { source: 'server', detached }, callOptions());
      expect(outcome.outputs).toHaveLength(1);
      expect(outcome.outputs[0]).toMatchObject({ kind: 'download', mimeType: 'text/csv', filename: 'report.csv' });
      expect(outcome.outputs[0]!.bytes.toString('utf8')).toBe(REPORT_CSV);
    },
  );

  it('file.reference: a BinaryDataReference to a file the test server serves', async () => {
    const d = data(await session.call('file.reference', {}, callOptions()));
    expect(d.file).toEqual({
      downloadUrl: `${server.url}/files/sample.png`,
      mimeType: 'image/png',
      size: SAMPLE_PNG.length,
      filename: 'sample.png',
    });
    expect(d.note).toBe('served by the test server');
    expect(hasBinaryData(d)).toBe(true);
    const fetched = Buffer.from(await (await fetch(d.file.downloadUrl)).arrayBuffer());
    expect(fetched.equals(SAMPLE_PNG)).toBe(true);
  });
});

describe('errors', () => {
  it('fail.retryable: retryable errors until the count in page state is reached, then success', async () => {
    const params = { failTimes: 2, key: 'retry-test' };
    const first = await session.call('fail.retryable', params, callOptions());
    const second = await session.call('fail.retryable', params, callOptions());
    const third = await session.call('fail.retryable', params, callOptions());
    expect(first.response).toEqual({
      success: false,
      error: { code: 'SERVICE_BUSY', message: 'busy, attempt 1', retryable: true, retryAfter: 10 },
    });
    expect(second.response.error).toMatchObject({ message: 'busy, attempt 2', retryable: true });
    expect(third.response).toEqual({ success: true, data: { attempts: 3 } });
  });

  it('fail.permanent: a non-retryable error with details, as the app sent it', async () => {
    const outcome = await session.call('fail.permanent', {}, callOptions());
    expect(outcome.response).toEqual({
      success: false,
      error: {
        code: 'PERMISSION_DENIED',
        message: 'the fixture never allows this',
        retryable: false,
        details: { reason: 'fixture' },
      },
    });
  });

  it('fail.throw: an exception thrown by the app becomes OPERATION_FAILED', async () => {
    const outcome = await session.call('fail.throw', {}, callOptions());
    expect(outcome.response.success).toBe(false);
    expect(outcome.response.error).toMatchObject({ code: 'OPERATION_FAILED', retryable: false });
    expect(outcome.response.error!.message).toContain('fixture exploded in fail.throw');
  });

  it("an unknown capability is the app's UNKNOWN_CAPABILITY error", async () => {
    const outcome = await session.call('no.such', {}, callOptions());
    expect(outcome.response.error).toMatchObject({ code: 'UNKNOWN_CAPABILITY' });
  });

  it('a call that never answers ends with TIMEOUT after the call timeout and is cancelled in the app', async () => {
    const options = callOptions({ timeoutMs: 300 });
    const outcome = await session.call('task.hang', {}, options);
    expect(outcome.response).toEqual({
      success: false,
      error: { code: 'TIMEOUT', message: 'task.hang did not answer within 300 ms', retryable: false },
    });
    await waitFor(
      async () => {
        const log = await session.call('cancel.log', {}, callOptions());
        return (data(log).cancelled as string[]).includes(options.callId);
      },
      5000,
      50,
      'the cancel to reach the app',
    );
    // the session is still usable
    expect((await session.call('text.reverse', { text: 'ok' }, callOptions())).response.success).toBe(true);
  });
});

describe('dialogs', () => {
  it('dialogs.all: alert dismissed, confirm accepted, prompt dismissed, each reported', async () => {
    const outcome = await session.call('dialogs.all', {}, callOptions());
    expect(outcome.response).toEqual({ success: true, data: { confirm: true, prompt: null } });
    expect(outcome.dialogs).toEqual([
      { type: 'alert', message: 'Fixture alert', action: 'dismissed' },
      { type: 'confirm', message: 'Fixture confirm?', action: 'accepted' },
      { type: 'prompt', message: 'Fixture prompt', action: 'dismissed' },
    ]);
    // dialogs are per call
    expect((await session.call('text.reverse', { text: 'x' }, callOptions())).dialogs).toEqual([]);
  });
});

describe('the guard', () => {
  it("grants the notification permission to the app's origin", async () => {
    expect(data(await session.call('permission.check', {}, callOptions()))).toEqual({ notification: 'granted' });
  });

  it('concurrent calls run one at a time, so each gets only its own side effects', async () => {
    const [printed, plain, dialogs] = await Promise.all([
      session.call('export.print', {}, callOptions()),
      session.call('text.reverse', { text: 'ab' }, callOptions()),
      session.call('dialogs.all', {}, callOptions()),
    ]);
    expect(printed.outputs.map((o) => o.kind)).toEqual(['print']);
    expect(printed.dialogs).toEqual([]);
    expect(plain).toEqual({
      response: { success: true, data: { reversed: 'ba', length: 2 } },
      outputs: [],
      dialogs: [],
    });
    expect(dialogs.outputs).toEqual([]);
    expect(dialogs.dialogs).toHaveLength(3);
  });
});

describe('renderToPdf', () => {
  it('renders HTML to an A4 PDF in a page of the same browser; its own dialogs do not block it', async () => {
    const pdf = await session.renderToPdf(
      '<html><body style="background:#fcc"><h1>Rendered ✓</h1><script>alert("in the PDF page")</script></body></html>',
    );
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pageSize(pdf)).toEqual([596, 842]);
    const letter = await session.renderToPdf('<p>letter</p>', {
      format: 'Letter',
      path: '/tmp/must-not-be-written.pdf',
    });
    expect(pageSize(letter)).toEqual([612, 792]);
    expect(existsSync('/tmp/must-not-be-written.pdf')).toBe(false);
    expect(events.pageLost).toEqual([]);
  });
});

describe('disconnect', () => {
  it('closes the browser; a second disconnect is harmless; calls then fail clearly', async () => {
    const other = newSession();
    await other.session.connect({ url: `${server.url}/` });
    const before = chromiumProcesses().length;
    expect(before).toBeGreaterThan(0);
    await other.session.disconnect();
    await other.session.disconnect();
    expect(other.session.connected).toBe(false);
    expect(other.session.info).toBeUndefined();
    await expect(other.session.call('text.reverse', { text: 'x' }, callOptions())).rejects.toThrow(
      'Not connected to an ABP app',
    );
    await expect(other.session.renderToPdf('<p>x</p>')).rejects.toThrow('Not connected');
    expect(other.events.pageLost).toEqual([]);
    // only this file's shared session's browser is left
    expect(chromiumProcesses().length).toBeLessThan(before);
  });
});
