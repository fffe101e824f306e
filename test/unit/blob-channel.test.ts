// The stdio transport's blob channel: a response's payloads kept as bytes go with that response and no
// other, to the caller that sent the request; everything else reaches the SDK restored; nothing is held
// once its message is delivered, dropped or answered too late.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BlobChannel } from '../../src/transports/blob-channel.js';
import { BLOB_LITERAL_BYTES } from '../../src/transports/blob-table.js';
import { JsonLineReader } from '../../src/transports/json-lines.js';
import { LiteralCutter } from '../../src/transports/literal-cutter.js';

const payload = (char: string) => char.repeat(BLOB_LITERAL_BYTES + 1);

/** A channel fed as the stdio transport feeds it: lines cut and parsed, each message handed over with its blobs. */
function channelUnderTest() {
  const channel = new BlobChannel();
  const delivered: JSONRPCMessage[] = [];
  const reader = new JsonLineReader({
    message: (message) => delivered.push(channel.received(message)),
    noise: () => channel.table.dropMessageBlobs(),
    oversize: () => channel.table.dropMessageBlobs(),
  });
  const cutter = new LiteralCutter((bytes) => reader.push(bytes), 1 << 30, channel.table);
  const arrive = (...messages: object[]) => {
    const bytes = Buffer.from(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
    for (let at = 0; at < bytes.length; at += 65_536) cutter.push(bytes.subarray(at, at + 65_536));
  };
  const request = (id: number, token: string) =>
    channel.sent({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', _meta: { progressToken: token } } });
  return { channel, delivered, arrive, request };
}

const imageResult = (id: number, data: string) => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'image', mimeType: 'image/png', data }] },
});
const dataOf = (message: JSONRPCMessage) =>
  (message as unknown as { result: { content: { data: string }[] } }).result.content[0].data;

test("two requests in flight: each caller gets its own response's blobs, and cannot read the other's", () => {
  const { channel, delivered, arrive, request } = channelUnderTest();
  request(1, 'a');
  request(2, 'b');
  // Answered out of order, in one read.
  arrive(imageResult(2, payload('B')), imageResult(1, payload('A')));
  const [second, first] = delivered;
  const a = channel.take('a');
  const b = channel.take('b');
  expect(a.size).toBe(1);
  expect(b.size).toBe(1);
  expect(a.view(dataOf(first))!.text()).toBe(payload('A'));
  expect(b.view(dataOf(second))!.text()).toBe(payload('B'));
  expect(a.view(dataOf(second))).toBeUndefined();
  expect(b.view(dataOf(first))).toBeUndefined();
  expect(a.restore(second)).toBe(second);
  expect(channel.table.outstanding).toBe(2);
  expect(dataOf(a.deliver(first))).toBe(payload('A'));
  expect(channel.table.outstanding).toBe(1);
  expect(dataOf(b.deliver(second))).toBe(payload('B'));
  expect(channel.table.outstanding).toBe(0);
  // Taken once: the caller owns them; releasing afterwards changes nothing.
  channel.release('a');
  channel.release('b');
  expect(channel.take('a').size).toBe(0);
});

test('a response whose caller stopped waiting has its blobs let go when it arrives late', () => {
  const { channel, delivered, arrive, request } = channelUnderTest();
  request(1, 'a');
  channel.release('a'); // cancelled, or timed out
  arrive(imageResult(1, payload('A')));
  expect(channel.table.outstanding).toBe(0);
  // The SDK gets the marker, not the payload, for a response it will drop.
  expect(dataOf(delivered[0]).length).toBeLessThan(100);
});

test('a response that arrives but is never taken is let go when its caller is done', () => {
  const { channel, arrive, request } = channelUnderTest();
  request(1, 'a');
  arrive(imageResult(1, payload('A')));
  expect(channel.table.outstanding).toBe(1);
  channel.release('a'); // the request failed after all (e.g. the client went away)
  expect(channel.table.outstanding).toBe(0);
});

test('notifications, server requests, errors and answers to untracked requests reach the SDK restored', () => {
  const { channel, delivered, arrive, request } = channelUnderTest();
  request(3, 'c');
  channel.sent({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} });
  const messages = [
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: payload('L') } },
    {
      jsonrpc: '2.0',
      id: 9,
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'image', data: payload('S'), mimeType: 'image/png' } }] },
    },
    { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'failed', data: payload('E') } },
    { jsonrpc: '2.0', id: 4, result: { tools: [{ name: 't', description: payload('D') }] } },
  ];
  arrive(...messages);
  expect(delivered).toEqual(messages);
  expect(channel.table.outstanding).toBe(0);
  expect(channel.take('c').size).toBe(0);
});

test('closing lets go of answers nobody took', () => {
  const { channel, arrive, request } = channelUnderTest();
  request(1, 'a');
  arrive(imageResult(1, payload('A')));
  channel.close();
  expect(channel.table.outstanding).toBe(0);
});
