// What happens around a capability call, through the gateway in real headless Chromium: progress,
// cancellation, app notifications, elicitation (answered by a client, or by the configured fallback),
// retries and errors. Two backends share the file: "browser" (elicitation fallback: defaults) and
// "strict" (fallback: cancel), so tool names carry their server's prefix.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type ElicitRequest,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { chromiumProcesses, startAbpServer, type AbpServer } from '../helpers/abp-server.js';
import {
  abpServer,
  call,
  connectClient,
  savedBytes,
  startAbpGateway,
  textBlocks,
  waitFor,
  type AbpGateway,
} from '../helpers/abp-gateway.js';

let app: AbpServer;
let proxy: AbpGateway;
/** A client that cannot answer elicitations. */
let plain: Client;
const asked: ElicitRequest['params'][] = [];
const logged: Array<{ logger?: string; data?: unknown }> = [];

beforeAll(async () => {
  app = await startAbpServer();
  proxy = await startAbpGateway({
    abpServers: [abpServer('browser'), abpServer('strict', { elicitation: 'cancel', retries: { maxRetries: 0 } })],
    setup: (client) => {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params);
        const props = (request.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema
          .properties;
        return 'confirmed' in props
          ? { action: 'accept', content: { confirmed: false } }
          : { action: 'accept', content: { value: 'Ada' } };
      });
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params));
    },
  });
  plain = await connectClient(proxy.gateway, {});
  for (const server of ['browser', 'strict']) {
    const result = await call(proxy.client, `${server}__abp_connect`, { url: `${app.url}/` });
    expect(result.isError).toBeFalsy();
  }
}, 90_000);

afterAll(async () => {
  await plain?.close();
  await proxy?.close();
  await app?.close();
  expect(chromiumProcesses()).toEqual([]);
});

const records = (msg: string) => proxy.logs().filter((r) => r.msg === msg);
const docOf = (result: Parameters<typeof savedBytes>[0]) =>
  JSON.parse(savedBytes(result).toString('utf8')) as Record<string, unknown>;

describe('progress and notifications', () => {
  test("the app's progress reaches the client on its own progress token, and the result follows", async () => {
    const seen: Progress[] = [];
    const result = await proxy.client.callTool(
      { name: 'browser__abp_task_slow', arguments: { steps: 4, delayMs: 30 } },
      undefined,
      {
        onprogress: (p) => void seen.push(p),
      },
    );
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 4, 'step 1: working'],
      [2, 4, 'step 2: working'],
      [3, 4, 'step 3: working'],
      [4, 4, 'step 4: working'],
    ]);
    expect(docOf(result as never)).toEqual({ steps: 4 });
  });

  test('app notifications become MCP logging messages named after the backend', async () => {
    await waitFor(() =>
      logged.some((m) => (m.data as { method?: string }).method === 'notifications/operation/completed'),
    );
    expect(logged).toContainEqual({
      level: 'info',
      logger: 'browser/abp',
      data: {
        method: 'notifications/operation/started',
        params: { callId: expect.any(String), capability: 'task.slow' },
      },
    });
  });
});

describe('cancellation', () => {
  test('a client cancelling its call makes the backend cancel it in the app, which answers for itself', async () => {
    const abort = new AbortController();
    const pending = proxy.client.callTool(
      { name: 'browser__abp_call', arguments: { capability: 'task.hang' } },
      undefined,
      { signal: abort.signal },
    );
    await waitFor(() => records('calling capability').some((r) => r.capability === 'task.hang'));
    abort.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    await waitFor(() => records('capability call finished').some((r) => r.capability === 'task.hang'));
    expect(records('call cancelled')).toContainEqual(
      expect.objectContaining({ capability: 'task.hang', appCancels: true }),
    );
    // The app's own `{cancelled: true}` answer, not the session's fallback after its grace period (code CANCELLED).
    const finished = records('capability call finished').find((r) => r.capability === 'task.hang')!;
    expect(finished.code).toBeUndefined();
  });
});

describe('elicitation', () => {
  test('a client that supports elicitation is asked, and its answer reaches the app', async () => {
    const confirm = docOf(
      await call(proxy.client, 'browser__abp_call', { capability: 'ask.confirm', params: { message: 'Delete it?' } }),
    );
    expect(confirm).toEqual({ confirmed: false, answer: { success: true, data: { confirmed: false } } });
    expect(asked[0]).toMatchObject({
      message: 'Delete it?',
      requestedSchema: {
        type: 'object',
        properties: { confirmed: { type: 'boolean', default: true } },
        required: ['confirmed'],
      },
    });
    const input = docOf(await call(proxy.client, 'browser__abp_ask_input', { prompt: 'Name?' }));
    expect(input).toEqual({ value: 'Ada' });
    expect(asked[1]).toMatchObject({
      message: 'Name?',
      requestedSchema: { properties: { value: { type: 'string' } }, required: ['value'] },
    });
  });

  test('for a client that cannot answer, "defaults" confirms non-destructive actions and gives empty input', async () => {
    const before = asked.length;
    const confirm = docOf(await call(plain, 'browser__abp_ask_confirm', {}));
    expect(confirm).toEqual({ confirmed: true, answer: { success: true, data: { confirmed: true } } });
    expect(docOf(await call(plain, 'browser__abp_ask_input', {}))).toEqual({ value: '' });
    expect(asked.length).toBe(before);
  });

  test('for a client that cannot answer, "cancel" cancels the question', async () => {
    const confirm = docOf(await call(plain, 'strict__abp_ask_confirm', {}));
    expect(confirm).toEqual({ confirmed: false, answer: { success: false, cancelled: true } });
    const input = await call(plain, 'strict__abp_ask_input', {});
    expect(input.isError).toBe(true);
    expect(textBlocks(input)[0]).toMatch(
      /^ELICITATION_DECLINED: no value given\nDetails: \{"success":false,"cancelled":true\}/,
    );
  });
});

describe('errors and retries', () => {
  test('a retryable error is retried with back-off until the app succeeds', async () => {
    const result = await call(proxy.client, 'browser__abp_call', {
      capability: 'fail.retryable',
      params: { key: 'twice', failTimes: 2 },
    });
    expect(result.isError).toBeFalsy();
    expect(docOf(result)).toEqual({ attempts: 3 });
    expect(
      records('retryable error; retrying')
        .filter((r) => r.capability === 'fail.retryable')
        .map((r) => r.delayMs),
    ).toEqual([20, 40]);
  });

  test('retries run out: the last error is inline as CODE: message (retryable)', async () => {
    const result = await call(proxy.client, 'browser__abp_call', {
      capability: 'fail.retryable',
      params: { key: 'always', failTimes: 99 },
    });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'SERVICE_BUSY: busy, attempt 4 (retryable)\n(failed 4 times)' }],
      isError: true,
    });
    const once = await call(proxy.client, 'strict__abp_call', {
      capability: 'fail.retryable',
      params: { key: 'strict', failTimes: 1 },
    });
    expect(textBlocks(once)[0]).toBe('SERVICE_BUSY: busy, attempt 1 (retryable)');
  });

  test('a permanent error is inline at once, with its details', async () => {
    const result = await call(proxy.client, 'browser__abp_fail_permanent', {});
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'PERMISSION_DENIED: the fixture never allows this\nDetails: {"reason":"fixture"}' },
      ],
      isError: true,
    });
  });

  test('an app that throws gives a clean error', async () => {
    const result = await call(proxy.client, 'browser__abp_fail_throw', {});
    expect(result.isError).toBe(true);
    expect(textBlocks(result)[0]).toMatch(/^[A-Z_]+: .*fixture exploded in fail\.throw/);
  });

  test('an unknown capability is named, with what there is', async () => {
    const result = await call(proxy.client, 'browser__abp_call', { capability: 'no.such' });
    expect(textBlocks(result)[0]).toMatch(
      /^UNKNOWN_CAPABILITY: the app in session "default" has no capability "no\.such"\. Available: text\.reverse, /,
    );
  });
});
