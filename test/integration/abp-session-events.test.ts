// What the page sends the agent, through each of the protocol's two event conventions: progress,
// notifications, elicitation, capability changes; plus cancellation, a late window.abp and a lost page.
import { PageLostError } from '../../src/upstreams/abp/types.js';
import { chromiumProcesses, startAbpServer, type AbpServer } from '../helpers/abp-server.js';
import { callOptions, newSession } from '../helpers/abp-session.js';
import { waitFor } from '../helpers/fixtures.js';

let server: AbpServer;
beforeAll(async () => {
  server = await startAbpServer();
});
afterAll(() => server.close());

describe.each(['register', 'exposed'] as const)('events through the %s convention', (convention) => {
  const { session, events } = newSession();
  beforeAll(() => session.connect({ url: `${server.url}/?events=${convention}` }), 60_000);
  afterAll(() => session.disconnect());

  it("progress events carry the call's progress token and reach onProgress", async () => {
    events.progress.length = 0;
    const outcome = await session.call(
      'task.slow',
      { steps: 3, delayMs: 20 },
      callOptions({ progressToken: `tok-${convention}` }),
    );
    expect(outcome.response).toEqual({ success: true, data: { steps: 3 } });
    expect(events.progress).toEqual(
      [1, 2, 3].map((i) => ({
        operationId: `tok-${convention}`,
        progress: i,
        total: 3,
        percentage: Math.round((100 * i) / 3),
        status: 'working',
        stage: `step ${i}`,
      })),
    );
  });

  it('notifications reach onNotification with method and params', async () => {
    events.notifications.length = 0;
    const { callId } = callOptions();
    await session.call('task.slow', { steps: 1, delayMs: 1 }, { timeoutMs: 10_000, callId });
    expect(events.notifications).toEqual([
      { method: 'notifications/operation/started', params: { callId, capability: 'task.slow' } },
      { method: 'notifications/operation/completed', params: { callId, capability: 'task.slow' } },
    ]);
  });

  it('an elicitation is answered by onElicitation and the answer reaches the page', async () => {
    events.elicitations.length = 0;
    events.answer = async () => ({ success: true, data: { confirmed: true } });
    const confirmed = await session.call('ask.confirm', { message: 'Delete nothing?' }, callOptions());
    expect(events.elicitations).toEqual([
      { method: 'elicitation/confirm', params: { message: 'Delete nothing?', destructive: false } },
    ]);
    expect((confirmed.response.data as { confirmed: boolean }).confirmed).toBe(true);

    events.answer = async (request) => ({
      success: true,
      data: { value: `typed for ${String(request.params?.prompt)}` },
    });
    const input = await session.call('ask.input', { prompt: 'Name?' }, callOptions());
    expect(input.response).toEqual({ success: true, data: { value: 'typed for Name?' } });
  });

  it('a declined or failing elicitation reaches the page as an error answer', async () => {
    events.answer = async () => ({ success: false, cancelled: true });
    const declined = await session.call('ask.confirm', {}, callOptions());
    expect(declined.response.data).toEqual({ confirmed: false, answer: { success: false, cancelled: true } });

    events.answer = async () => {
      throw new Error('no client to ask');
    };
    const failed = await session.call('ask.input', {}, callOptions());
    expect(failed.response.error).toMatchObject({
      code: 'ELICITATION_DECLINED',
      details: { success: false, error: { code: 'OPERATION_FAILED', message: 'no client to ask' } },
    });
  });

  it('a capability change re-lists the capabilities once and tells onCapabilitiesChanged', async () => {
    const name = `dynamic.${convention}`;
    const outcome = await session.call('caps.add', { name }, callOptions());
    expect(outcome.response).toEqual({ success: true, data: { added: name } });
    await waitFor(() => events.capabilityChanges.length > 0, 5000, 20, 'onCapabilitiesChanged');
    const [changed] = events.capabilityChanges;
    expect(changed!.find((c) => c.name === name)).toMatchObject({ description: 'Added at run time', available: true });
    expect(session.info!.capabilities).toEqual(changed);
    expect((await session.call(name, { value: 7 }, callOptions())).response).toEqual({
      success: true,
      data: { echo: { value: 7 } },
    });
    // Both signals (list_changed notification and, where exposed, __abp_capabilities_changed) reached us before
    // the call's answer; once the re-listings they asked for are done, there was one change.
    await session.settled();
    expect(events.capabilityChanges).toHaveLength(1);
    expect(events.notifications).toContainEqual({
      method: 'notifications/capabilities/list_changed',
      params: { added: [name], removed: [], changed: [] },
    });
  });
});

describe('cancellation', () => {
  const { session, events } = newSession();
  beforeAll(() => session.connect({ url: `${server.url}/` }), 60_000);
  afterAll(() => session.disconnect());

  it('an aborted signal reaches the app as abp.cancel(callId), which answers cancelled', async () => {
    events.progress.length = 0;
    const controller = new AbortController();
    const call = session.call(
      'task.slow',
      { steps: 100, delayMs: 50 },
      callOptions({ progressToken: 'cancel-me', signal: controller.signal }),
    );
    await waitFor(() => events.progress.length >= 2, 10_000, 20, 'two progress events');
    controller.abort();
    const outcome = await call;
    // the app's own answer (not the session's fallback): the cancel reached it
    expect(outcome.response).toEqual({
      success: false,
      cancelled: true,
      error: { code: 'CANCELLED', message: 'cancelled by the agent', retryable: false },
    });
    expect(events.progress.length).toBeLessThan(100);
  });

  it('a call cancelled before it starts never reaches the app', async () => {
    const controller = new AbortController();
    controller.abort();
    const options = callOptions({ signal: controller.signal });
    const outcome = await session.call('task.hang', {}, options);
    expect(outcome.response).toEqual({
      success: false,
      cancelled: true,
      error: { code: 'CANCELLED', message: 'task.hang was cancelled before it started', retryable: false },
    });
    const log = await session.call('cancel.log', {}, callOptions());
    expect((log.response.data as { cancelled: string[] }).cancelled).not.toContain(options.callId);
  });

  it('an app that ignores the cancel: the session answers cancelled itself and stays usable', async () => {
    const controller = new AbortController();
    events.progress.length = 0;
    const call = session.call('task.deaf', {}, callOptions({ signal: controller.signal, progressToken: 'deaf' }));
    await waitFor(() => events.progress.some((p) => p.operationId === 'deaf'), 10_000, 20, 'task.deaf to start');
    controller.abort();
    expect((await call).response).toEqual({
      success: false,
      cancelled: true,
      error: { code: 'CANCELLED', message: 'task.deaf was cancelled', retryable: false },
    });
    expect((await session.call('text.reverse', { text: 'on' }, callOptions())).response.data).toEqual({
      reversed: 'no',
      length: 2,
    });
  });
});

describe('late window.abp and a lost page', () => {
  const { session, events } = newSession();
  afterAll(() => session.disconnect());

  it('waits for an app that defines window.abp after load', async () => {
    const info = await session.connect({ url: `${server.url}/?late=1` });
    expect(info.app.id).toBe('dev.mcp-offload.fixture');
    expect((await session.call('text.reverse', { text: 'late' }, callOptions())).response.data).toEqual({
      reversed: 'etal',
      length: 4,
    });
  }, 60_000);

  it('an app that reloads its page is initialized again before the next call', async () => {
    const before = session.info!.sessionId;
    expect((await session.call('page.reload', {}, callOptions())).response.data).toEqual({ reloading: true });
    // calls racing the reload may fail; once the new document is there the session initializes it again
    await waitFor(
      async () => {
        const outcome = await session.call('session.info', {}, callOptions());
        return outcome.response.success && session.info!.sessionId !== before;
      },
      20_000,
      100,
      'the reloaded app to be initialized',
    );
    const after = await session.call('session.info', {}, callOptions());
    expect(after.response.data).toMatchObject({
      initializeCount: 1,
      agent: { name: 'mcp-offload-tests', version: '0.0.0' },
    });
    expect(session.info!.sessionId).toMatch(/^fixture-/);
    expect(session.info!.sessionId).not.toBe(before);
  }, 30_000);

  it('a page that closes itself: onPageLost, then PageLostError with a clear message on the next call', async () => {
    const outcome = await session.call('page.close', {}, callOptions());
    expect(outcome.response).toEqual({ success: true, data: { closing: true } });
    await waitFor(() => events.pageLost.length > 0, 5000, 20, 'onPageLost');
    expect(events.pageLost).toEqual(['the page was closed']);
    const next = session.call('text.reverse', { text: 'x' }, callOptions());
    await expect(next).rejects.toBeInstanceOf(PageLostError);
    await expect(session.call('text.reverse', { text: 'x' }, callOptions())).rejects.toThrow(
      "The ABP app's page is gone: the page was closed. Connect again to go on.",
    );
    await session.disconnect();
    expect(session.connected).toBe(false);
  });
});

describe('a crashed page', () => {
  const { session, events } = newSession();
  beforeAll(() => session.connect({ url: `${server.url}/` }), 60_000);
  afterAll(() => session.disconnect());

  it('a killed renderer: onPageLost, then PageLostError naming the crash', async () => {
    const renderers = chromiumProcesses().filter((p) => p.command.includes('--type=renderer'));
    expect(renderers.length).toBeGreaterThan(0);
    for (const renderer of renderers) process.kill(renderer.pid, 'SIGKILL');
    await waitFor(() => events.pageLost.length > 0, 10_000, 20, 'onPageLost');
    expect(events.pageLost[0]).toMatch(/^the page crashed/);
    await expect(session.call('text.reverse', { text: 'x' }, callOptions())).rejects.toThrow(
      /The ABP app's page is gone: the page crashed/,
    );
  });
});

describe('a download that does not finish in time', () => {
  const { session } = newSession({ downloadTimeoutMs: 500 });
  beforeAll(() => session.connect({ url: `${server.url}/` }), 60_000);
  afterAll(() => session.disconnect());

  it('is given up after the download timeout: the call returns without it', async () => {
    const outcome = await session.call('export.download', { source: 'slow' }, callOptions());
    expect(outcome.response).toEqual({ success: true, data: { started: true, filename: 'endless.bin' } });
    expect(outcome.outputs).toEqual([]);
    // and the next download is still captured
    const next = await session.call('export.download', {}, callOptions());
    expect(next.outputs.map((o) => o.filename)).toEqual(['data.csv']);
  });
});

describe('a browser that goes away', () => {
  const { session, events } = newSession();
  beforeAll(() => session.connect({ url: `${server.url}/` }), 60_000);

  it('a killed browser: onPageLost, PageLostError, and a disconnect that does not throw', async () => {
    const browsers = chromiumProcesses().filter((p) => !p.command.includes('--type='));
    expect(browsers).toHaveLength(1);
    process.kill(browsers[0]!.pid, 'SIGKILL');
    await waitFor(() => events.pageLost.length > 0, 10_000, 20, 'onPageLost');
    await expect(session.call('text.reverse', { text: 'x' }, callOptions())).rejects.toBeInstanceOf(PageLostError);
    await session.disconnect();
    expect(session.connected).toBe(false);
    await waitFor(() => chromiumProcesses().length === 0, 10_000, 50, 'no chromium left');
  });
});

describe('an app stuck in an endless loop', () => {
  const { session } = newSession({ browserTimeoutMs: 4000 });
  beforeAll(() => session.connect({ url: `${server.url}/` }), 60_000);

  it('the call times out, the next call fails with a clear error instead of hanging, disconnect still works', async () => {
    const stuck = await session.call('task.spin', {}, callOptions({ timeoutMs: 300 }));
    expect(stuck.response.error).toMatchObject({ code: 'TIMEOUT', message: 'task.spin did not answer within 300 ms' });
    const next = await session.call('text.reverse', { text: 'x' }, callOptions());
    expect(next.response.error).toMatchObject({ code: 'OPERATION_FAILED' });
    expect(next.response.error!.message).toMatch(/did not finish within 4000 ms \(is the page busy or stuck\?\)/);
    await session.disconnect();
    expect(session.connected).toBe(false);
    await waitFor(() => chromiumProcesses().length === 0, 15_000, 50, 'no chromium left');
  }, 60_000);
});
