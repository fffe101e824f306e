// The response of a lean POST (http/lazy-answer.ts) on a real Node response read by fetch: an answer sent before
// anything else goes out as JSON; otherwise the SSE frames the SDK's transport writes make a stream, in order.
import { afterAll, describe, expect, test } from '@jest/globals';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LazyAnswer } from '../../src/http/lazy-answer.js';

type Script = (answer: LazyAnswer, res: ServerResponse) => void | Promise<void>;
let script: Script = () => undefined;
const server = createServer((_req, res) => void script(new LazyAnswer(res, 'session-1'), res));
const listening = new Promise<string>((resolve) =>
  server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)),
);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** What a client reads when the response is written by `run`. */
async function served(
  run: Script,
  status = 200,
): Promise<{ type: string | null; length: string | null; body: string }> {
  script = run;
  const res = await fetch(await listening);
  expect(res.status).toBe(status);
  expect(res.headers.get('mcp-session-id')).toBe('session-1');
  return { type: res.headers.get('content-type'), length: res.headers.get('content-length'), body: await res.text() };
}

const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"é \\n"}]}}';
const frame = (json: string, id?: string) => `event: message\n${id ? `id: ${id}\n` : ''}data: ${json}\n\n`;
const LOG = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}';
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('LazyAnswer', () => {
  test('an answer sent before anything else is the whole response: one JSON body, with its length', async () => {
    let sent: boolean | undefined;
    const got = await served((answer) => {
      sent = answer.json(ANSWER);
    });
    expect(sent).toBe(true);
    expect(got).toEqual({ type: 'application/json', length: String(Buffer.byteLength(ANSWER)), body: ANSWER });
  });

  test('an answer after another message is refused as JSON: it follows the message on the stream', async () => {
    const refused: boolean[] = [];
    const got = await served((answer) => {
      answer.enqueue(frame(LOG));
      refused.push(answer.json(ANSWER));
      answer.enqueue(frame(ANSWER));
      refused.push(answer.json(ANSWER));
      answer.end();
    });
    expect(refused).toEqual([false, false]);
    expect(got).toEqual({ type: 'text/event-stream', length: null, body: frame(LOG) + frame(ANSWER) });
  });

  test('a message that comes first opens the stream at once; the answer follows on it', async () => {
    let openBeforeAnswer: boolean | undefined;
    const got = await served(async (answer, res) => {
      answer.enqueue(frame(LOG, 'e1'));
      await nextTurn();
      openBeforeAnswer = res.headersSent;
      answer.enqueue(frame(ANSWER, 'e2'));
      answer.end();
    });
    expect(openBeforeAnswer).toBe(true);
    expect(got).toEqual({ type: 'text/event-stream', length: null, body: frame(LOG, 'e1') + frame(ANSWER, 'e2') });
  });

  test('two frames in one turn go out as a stream, in order', async () => {
    const got = await served((answer) => {
      answer.enqueue(frame(LOG));
      answer.enqueue(frame(ANSWER));
      answer.end();
    });
    expect(got).toEqual({ type: 'text/event-stream', length: null, body: frame(LOG) + frame(ANSWER) });
  });

  test('a keep-alive comment or a priming event while nothing else came opens the stream', async () => {
    const keptAlive = await served(async (answer) => {
      answer.enqueue(': keepalive\n\n');
      await nextTurn();
      answer.enqueue(frame(ANSWER));
      answer.end();
    });
    expect(keptAlive).toMatchObject({ type: 'text/event-stream', body: `: keepalive\n\n${frame(ANSWER)}` });

    const primed = await served((answer) => {
      expect(answer.openStream()).toBe(true);
      expect(answer.openStream()).toBe(false);
      answer.enqueue('id: p1\nretry: 1000\ndata: \n\n');
      answer.enqueue(frame(ANSWER, 'e2'));
      answer.end();
    });
    expect(primed).toMatchObject({
      type: 'text/event-stream',
      body: `id: p1\nretry: 1000\ndata: \n\n${frame(ANSWER, 'e2')}`,
    });
  });

  test('a stream ended with nothing in it is an empty stream; an answer the SDK framed stays a stream', async () => {
    expect(await served((answer) => answer.end())).toEqual({ type: 'text/event-stream', length: null, body: '' });
    const got = await served((answer) => {
      answer.enqueue(frame(ANSWER));
      answer.end();
    });
    expect(got).toEqual({ type: 'text/event-stream', length: null, body: frame(ANSWER) });
  });

  test('a JSON answer may carry another status (the SDK answers a missing client capability with 400)', async () => {
    const got = await served((answer) => void answer.json(ANSWER, 400), 400);
    expect(got).toEqual({ type: 'application/json', length: String(Buffer.byteLength(ANSWER)), body: ANSWER });
  });

  test('a keep-alive for a 2026-07-28 answer is dropped until the stream is open, and written on it after', async () => {
    const dropped = await served((answer) => {
      answer.whileStreaming(': keepalive\n\n');
      answer.json(ANSWER);
      answer.whileStreaming(': keepalive\n\n');
    });
    expect(dropped).toMatchObject({ type: 'application/json', body: ANSWER });
    const kept = await served(async (answer) => {
      answer.enqueue(frame(LOG));
      await nextTurn();
      answer.whileStreaming(': keepalive\n\n');
      answer.enqueue(frame(ANSWER));
      answer.end();
      answer.whileStreaming(': keepalive\n\n');
    });
    expect(kept).toMatchObject({ type: 'text/event-stream', body: `${frame(LOG)}: keepalive\n\n${frame(ANSWER)}` });
  });

  test('after the JSON answer, nothing more is written and the stream cannot be opened', async () => {
    let reopened: boolean | undefined;
    let again: boolean | undefined;
    const got = await served((answer) => {
      answer.json(ANSWER);
      answer.enqueue(frame(LOG));
      reopened = answer.openStream();
      again = answer.json(ANSWER);
      answer.end();
    });
    expect([reopened, again]).toEqual([false, false]);
    expect(got.body).toBe(ANSWER);
  });
});
