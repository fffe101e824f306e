import { JsonLineReader } from '../../src/transports/json-lines.js';

function collect(maxBytes?: number) {
  const messages: unknown[] = [];
  const noise: string[] = [];
  const oversize: number[] = [];
  const reader = new JsonLineReader(
    {
      message: (m) => messages.push(m),
      noise: (line, reason) => noise.push(`${reason}: ${line}`),
      oversize: (n) => oversize.push(n),
    },
    maxBytes,
  );
  return { reader, messages, noise, oversize };
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

test('splits messages at newlines, however the chunks fall', () => {
  const { reader, messages } = collect();
  const text = `${JSON.stringify(ping)}\n${JSON.stringify({ ...ping, id: 2 })}\r\n${JSON.stringify({ ...ping, id: 3 })}\n`;
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += 7) reader.push(bytes.subarray(i, i + 7));
  expect(messages).toEqual([ping, { ...ping, id: 2 }, { ...ping, id: 3 }]);
});

test('keeps multi-byte characters split across chunks intact', () => {
  const { reader, messages } = collect();
  const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { s: 'héllo 🌍' } })}\n`);
  const cut = bytes.indexOf(0xf0) + 2;
  reader.push(bytes.subarray(0, cut));
  reader.push(bytes.subarray(cut));
  expect(messages).toEqual([{ jsonrpc: '2.0', method: 'x', params: { s: 'héllo 🌍' } }]);
});

test('reports non-JSON and non-JSON-RPC lines as noise and goes on', () => {
  const { reader, messages, noise } = collect();
  reader.push(Buffer.from(`Starting server...\n\n{"log":"x"}\n[1,2]\n${JSON.stringify(ping)}\n`));
  expect(messages).toEqual([ping]);
  expect(noise).toEqual([
    'not JSON: Starting server...',
    'JSON but not JSON-RPC 2.0: {"log":"x"}',
    'JSON but not JSON-RPC 2.0: [1,2]',
  ]);
});

test('discards a line over the limit and recovers at the next newline', () => {
  const { reader, messages, oversize } = collect(100);
  reader.push(Buffer.from('x'.repeat(80)));
  reader.push(Buffer.from('x'.repeat(80)));
  reader.push(Buffer.from(`xx\n${JSON.stringify(ping)}\n`));
  expect(oversize).toEqual([162]);
  expect(messages).toEqual([ping]);
});

test('reset drops a partial line and says how much', () => {
  const { reader, messages } = collect();
  reader.push(Buffer.from('{"jsonrpc":"2.0",'));
  expect(reader.reset()).toBe(17);
  reader.push(Buffer.from(`${JSON.stringify(ping)}\n`));
  expect(messages).toEqual([ping]);
});
