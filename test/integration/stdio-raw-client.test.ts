// A legacy stdio client's calls through the relay core, driven as raw JSON lines on dist/cli.js, so what the client
// writes and reads is exactly what is checked: ids of every kind come back as sent, results and errors as the upstream
// sent them, progress under the client's token before the result, and a cancelled call is not answered and is
// cancelled upstream.
import { afterAll, afterEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeArtifactDir, startCli, stopAllCli, type CliProcess } from '../helpers/cli.js';
import { NODE, waitFor } from '../helpers/fixtures.js';
import { markPreview } from '../../src/pipeline/preview-mark.js';
import { makePng } from '../fixtures/pdf.mjs';

const SERVER = fileURLToPath(new URL('../fixtures/legacy-probe-server.mjs', import.meta.url));
const dirs: string[] = [];

afterEach(async () => {
  await stopAllCli();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => removeArtifactDir());

type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown> };

/**
 * The proxy in front of the legacy fixture, with the fixture recording what it receives, after the handshake;
 * `serverKeys` (YAML lines) go into the server's entry of a config file the proxy then runs with.
 */
async function proxy(serverKeys?: string): Promise<{
  cli: CliProcess;
  send(...messages: object[]): void;
  lines(): Message[];
  record(): Message[];
}> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-raw-client-'));
  dirs.push(dir);
  const recordFile = join(dir, 'record.jsonl');
  let args = ['--artifact-dir', join(dir, 'artifacts'), '--', NODE, SERVER, '--record', recordFile];
  if (serverKeys !== undefined) {
    const file = join(dir, 'config.yaml');
    const command = `command: ${JSON.stringify(NODE)}`;
    const serverArgs = `args: [${JSON.stringify(SERVER)}, --record, ${JSON.stringify(recordFile)}]`;
    writeFileSync(file, `servers:\n  probe:\n    ${command}\n    ${serverArgs}\n${serverKeys}`);
    args = ['--config', file, '--artifact-dir', join(dir, 'artifacts')];
  }
  const cli = startCli(args);
  const send = (...messages: object[]) =>
    cli.child.stdin!.write(messages.map((m) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`).join(''));
  const lines = () =>
    cli
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Message);
  const record = () =>
    readFileSync(recordFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Message);
  send({
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  await waitFor(() => lines().some((m) => m.id === 'init'), 15_000);
  send({ method: 'notifications/initialized' });
  return { cli, send, lines, record };
}

const answerTo = (lines: Message[], id: unknown) => lines.find((m) => m.id === id && !('method' in m));

describe('a legacy stdio client, as raw JSON lines', () => {
  test('ids of every kind come back as sent, with the upstream result unchanged', async () => {
    const p = await proxy();
    const ids = [0, 7, 'abc', 'mcp-offload-0', -1, 2 ** 40];
    p.send(...ids.map((id) => ({ id, method: 'tools/call', params: { name: 'echo', arguments: { text: `t${id}` } } })));
    await waitFor(() => ids.every((id) => answerTo(p.lines(), id)), 15_000);
    for (const id of ids) {
      expect(answerTo(p.lines(), id)).toEqual({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: `echo: t${id}` }] },
      });
    }
    // Upstream, each call went out once, under an id of the proxy's own.
    const calls = p.record().filter((m) => m.method === 'tools/call');
    expect(calls.map((m) => (m.params!.arguments as { text: string }).text).sort()).toEqual(
      ids.map((id) => `t${id}`).sort(),
    );
    expect(new Set(calls.map((m) => m.id)).size).toBe(ids.length);
  });

  test('a call written in the same chunk as initialize and initialized is answered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-offload-raw-client-'));
    dirs.push(dir);
    const cli = startCli(['--', NODE, SERVER]);
    cli.child.stdin!.write(
      [
        {
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        },
        { method: 'notifications/initialized' },
        { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'early' } } },
      ]
        .map((m) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`)
        .join(''),
    );
    await waitFor(() => cli.stdout().includes('"id":2'), 15_000);
    const answer = cli
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Message)
      .find((m) => m.id === 2);
    expect(answer).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echo: early' }] } });
  });

  test('an upstream error reaches the client with its code, message and data as they were', async () => {
    const p = await proxy();
    p.send({ id: 5, method: 'tools/call', params: { name: 'fail', arguments: {} } });
    await waitFor(() => answerTo(p.lines(), 5), 15_000);
    expect(answerTo(p.lines(), 5)).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32050, message: 'it failed', data: { why: 'on purpose', n: [1, 2] } },
    });
  });

  test('progress reaches the client under its own token, in order, before the result', async () => {
    const p = await proxy();
    p.send({
      id: 9,
      method: 'tools/call',
      params: { name: 'steps', arguments: { count: 3 }, _meta: { progressToken: 'mine' } },
    });
    await waitFor(() => answerTo(p.lines(), 9), 15_000);
    const seen = p.lines().filter((m) => m.method === 'notifications/progress' || m.id === 9);
    expect(seen).toEqual([
      ...[1, 2, 3].map((progress) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'mine', progress, total: 3 },
      })),
      { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
    // Upstream the call carried the proxy's own token, not the client's.
    const call = p.record().find((m) => m.method === 'tools/call' && m.params!.name === 'steps')!;
    expect((call.params!._meta as { progressToken: unknown }).progressToken).not.toBe('mine');
  });

  test('what the upstream logs before an answer reaches the client before it, for calls in flight together', async () => {
    const p = await proxy();
    const ids = [1, 2, 3, 4, 5, 6];
    p.send(
      ...ids.map((id) => ({ id, method: 'tools/call', params: { name: 'chatty', arguments: { text: `c${id}` } } })),
    );
    await waitFor(() => ids.every((id) => answerTo(p.lines(), id)), 15_000);
    const seen = p.lines().filter((m) => m.method === 'notifications/message' || ids.includes(m.id as number));
    // Each call's two log messages come before its answer (answers read together may follow them all), and the
    // calls end in the order the upstream ended them.
    const order = seen.map((m) => (m.method ? String((m.params as { data: string }).data) : `answer ${String(m.id)}`));
    for (const id of ids) {
      expect(order.indexOf(`c${id} 1`)).toBeLessThan(order.indexOf(`c${id} 2`));
      expect(order.indexOf(`c${id} 2`)).toBeLessThan(order.indexOf(`answer ${id}`));
    }
    expect(order.filter((line) => line.startsWith('answer'))).toEqual(ids.map((id) => `answer ${id}`));
    expect(order).toHaveLength(3 * ids.length);
    for (const id of ids) {
      expect(answerTo(p.lines(), id)).toEqual({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: `said: c${id}` }] },
      });
    }
  });

  test('a cancelled call is never answered, and the upstream is told to cancel its own request', async () => {
    const p = await proxy();
    p.send({ id: 'slow', method: 'tools/call', params: { name: 'hold', arguments: {} } });
    await waitFor(() => p.record().some((m) => m.method === 'tools/call' && m.params!.name === 'hold'), 15_000);
    p.send({ method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'changed my mind' } });
    await waitFor(() => p.record().some((m) => m.method === 'notifications/cancelled'), 15_000);
    const held = p.record().find((m) => m.method === 'tools/call' && m.params!.name === 'hold')!;
    const cancelled = p.record().find((m) => m.method === 'notifications/cancelled')!;
    expect(cancelled.params!.requestId).toBe(held.id);
    // A call sent after the cancellation is answered; the cancelled one never is.
    p.send({ id: 'after', method: 'tools/call', params: { name: 'echo', arguments: { text: 'next' } } });
    await waitFor(() => answerTo(p.lines(), 'after'), 15_000);
    expect(answerTo(p.lines(), 'slow')).toBeUndefined();
  });

  test('a call the upstream does not answer in time ends with the timeout error, and the upstream is told', async () => {
    const p = await proxy('    timeoutMs: 400\n');
    p.send({ id: 'late', method: 'tools/call', params: { name: 'hold', arguments: {} } });
    await waitFor(() => answerTo(p.lines(), 'late'), 15_000);
    expect(answerTo(p.lines(), 'late')).toEqual({
      jsonrpc: '2.0',
      id: 'late',
      error: { code: -32001, message: 'upstream "probe" did not answer tools/call within 400 ms' },
    });
    await waitFor(() => p.record().some((m) => m.method === 'notifications/cancelled'), 15_000);
    const held = p.record().find((m) => m.method === 'tools/call')!;
    expect(p.record().find((m) => m.method === 'notifications/cancelled')!.params!.requestId).toBe(held.id);
    // The upstream still answers its ping, so it is kept, and the next call is served.
    p.send({ id: 'next', method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } });
    await waitFor(() => answerTo(p.lines(), 'next'), 15_000);
    expect(answerTo(p.lines(), 'next')!.result).toEqual({ content: [{ type: 'text', text: 'echo: still here' }] });
  });

  test('an image result is stored and summarized on the way, a short text is not, and the new artifact is announced', async () => {
    const p = await proxy();
    p.send(
      { id: 'img', method: 'tools/call', params: { name: 'image', arguments: {} } },
      { id: 'txt', method: 'tools/call', params: { name: 'echo', arguments: { text: 'plain' } } },
    );
    await waitFor(() => answerTo(p.lines(), 'img') && answerTo(p.lines(), 'txt'), 15_000);
    const image = answerTo(p.lines(), 'img')!.result as {
      content: Array<{ type: string; uri?: string; text?: string }>;
    };
    expect(image.content[0]!.text).toMatch(/^File saved: .*\.png\nType: image\/png\n/);
    const links = image.content.filter((block) => block.type === 'resource_link');
    expect(links.map((block) => block.uri)).toEqual([expect.stringMatching(/^artifact:\/\//)]);
    expect(answerTo(p.lines(), 'txt')!.result).toEqual({ content: [{ type: 'text', text: 'echo: plain' }] });
    expect(p.lines().some((m) => m.method === 'notifications/resources/list_changed')).toBe(true);
  });

  // The relay reads a call's text for what its arguments may hold (Frame.plainText) and walks them only when the text
  // may hold it: an escape in the text can hide it from such a search, so a text with a backslash is walked.
  test('arguments that spell an artifact URI or a cut answer with escapes are still caught, and never sent', async () => {
    const p = await proxy();
    const stale = String.raw`artifact:\/\/probe\/echo_0123456789ab.png`;
    const cut = String.raw`\u2026 [cut at 100 of 5000 characters; narrow the range or query]`;
    const plainCut = '… [cut at 100 of 5000 characters; narrow the range or query]';
    const raw = (id: string, text: string) =>
      `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"text":"${text}"}}}\n`;
    // An image preview of the proxy's, as base64 (nothing escaped, no hint: known by its length, then its mark).
    const preview = markPreview(makePng(60, 40, 5), 'artifact://probe/echo_0123456789ab.png').toString('base64');
    expect(preview.length).toBeGreaterThan(1024);
    p.cli.child.stdin!.write(
      raw('uri', stale) +
        raw('plain-uri', 'artifact://probe/echo_0123456789ab.png') +
        raw('cut', cut) +
        raw('plain-cut', plainCut) +
        raw('preview', preview) +
        raw('ok', 'fine'),
    );
    const ids = ['uri', 'plain-uri', 'cut', 'plain-cut', 'preview', 'ok'];
    await waitFor(() => ids.every((id) => answerTo(p.lines(), id)), 15_000);
    const said = (id: string) => JSON.stringify(answerTo(p.lines(), id)!.result);
    expect(said('uri')).toContain('which mcp-offload does not hold for this client');
    expect(said('plain-uri')).toContain('which mcp-offload does not hold for this client');
    expect(said('cut')).toContain('mcp-offload did not send this call');
    expect(said('plain-cut')).toContain('mcp-offload did not send this call');
    expect(said('preview')).toContain(
      'holds an image preview mcp-offload made of artifact://probe/echo_0123456789ab.png',
    );
    expect(answerTo(p.lines(), 'ok')!.result).toEqual({ content: [{ type: 'text', text: 'echo: fine' }] });
    // Upstream, only the ordinary call arrived.
    const sent = p.record().filter((m) => m.method === 'tools/call');
    expect(sent.map((m) => (m.params!.arguments as { text: string }).text)).toEqual(['fine']);
  });
});
