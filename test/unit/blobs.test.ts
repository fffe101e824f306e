import { decodeBase64PiecesStrict } from '../../src/codec/base64.js';
import type { Blobs } from '../../src/wire/blobs.js';
import { BLOB_LITERAL_BYTES } from '../../src/wire/blob-table.js';
import { blobsLeftOver, readLines } from '../helpers/blob-reader.js';

const big = (char: string, n = BLOB_LITERAL_BYTES + 10) => char.repeat(n);

afterEach(() => {
  // Every test delivers what it read, so no bytes are left held.
  expect(blobsLeftOver()).toBe(0);
});

test('long escape-free literals become markers on the way in, and restore to the very same message', () => {
  const message = {
    jsonrpc: '2.0',
    id: 7,
    result: {
      content: [
        { type: 'image', mimeType: 'image/png', data: big('A') },
        { type: 'text', text: `${big('é', BLOB_LITERAL_BYTES)} ü` },
        { type: 'text', text: 'small "quoted" text\\n' },
      ],
    },
  };
  const second = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } };
  for (const chunkSize of [65536, 7, 1_000_003]) {
    const { received } = readLines<typeof message>(`${JSON.stringify(message)}\n${JSON.stringify(second)}\n`, {
      chunkSizes: [chunkSize],
    });
    const [{ message: parsed, blobs }, next] = received;
    if (chunkSize < BLOB_LITERAL_BYTES) {
      expect(blobs.size).toBe(2);
      expect(blobs.view(parsed.result.content[0].data)!.length).toBe(BLOB_LITERAL_BYTES + 10);
      expect(blobs.isMarker(parsed.result.content[1].text)).toBe(true);
    }
    expect(parsed.result.content[2]).toEqual(message.result.content[2]);
    // The next message arrived with none of them.
    expect(next.message).toEqual(second);
    expect(next.blobs.size).toBe(0);
    expect(blobs.deliver(parsed)).toEqual(message);
  }
});

test('a long literal with escapes, even one split right after a backslash, passes unchanged', () => {
  const text = `${big('a', BLOB_LITERAL_BYTES * 2)}\\"quoted\\" and a backslash \\\\ at the end\\\\`;
  const message = { jsonrpc: '2.0', method: 'x', params: { text: JSON.parse(`"${text}"`) } };
  const line = JSON.stringify(message);
  const split = line.indexOf('\\"') + 1;
  const { received } = readLines(`${line}\n`, { chunkSizes: [split] });
  expect(received.map((r) => r.message)).toEqual([message]);
});

test('a literal over the message limit is passed on, for the line limit to refuse; its bytes are not kept', () => {
  const { received, oversize } = readLines(
    `${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: big('B', 2_000_000) } })}\n{"jsonrpc":"2.0","method":"y"}\n`,
    { max: 1_000_000 },
  );
  expect(oversize).toHaveLength(1);
  expect(received.map((r) => r.message)).toEqual([{ jsonrpc: '2.0', method: 'y' }]);
});

test('a line that is no message lets go of what was kept while it was read', () => {
  const { received, table } = readLines(`{"jsonrpc":"2.0","method":"x","params":{"data":"${big('C')}"}} trailing\n`, {
    chunkSizes: [4096],
  });
  expect(received).toEqual([]);
  expect(table.outstanding).toBe(0);
});

test('restoring leaves objects without markers as the same objects', () => {
  const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } };
  const [{ blobs }] = readLines(`${JSON.stringify(message)}\n`).received;
  expect(blobs.deliver(message)).toBe(message);
});

test("one message's markers mean nothing to another message's blobs, even from the same table", () => {
  const line = (id: number, char: string) =>
    `${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'image', data: big(char) }] } })}\n`;
  const { received, table } = readLines<{ result: { content: { data: string }[] } }>(line(1, 'A') + line(2, 'B'));
  const [first, second] = received;
  const [a, b] = [first, second].map((r) => r.message.result.content[0].data);
  expect(first.blobs.isMarker(a) && second.blobs.isMarker(b)).toBe(true);
  expect(first.blobs.view(b)).toBeUndefined();
  expect(second.blobs.view(a)).toBeUndefined();
  // Delivering the wrong one's message restores nothing of it.
  expect(second.blobs.restore(first.message)).toBe(first.message);
  expect(table.outstanding).toBe(2);
  first.blobs.deliver(first.message);
  expect(table.outstanding).toBe(1);
  second.blobs.deliver(second.message);
  expect(table.outstanding).toBe(0);
});

test('a marked payload decodes from its pieces exactly like the string would; bad base64 is refused', () => {
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 7);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  const decode = (data: string, blobs: Blobs) => {
    const view = blobs.view(data)!;
    return decodeBase64PiecesStrict(view.pieces(), view.length);
  };
  for (const encoded of [bytes.toString('base64'), bytes.toString('base64url')]) {
    const [{ message, blobs }] = readLines<{ params: { data: string } }>(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: encoded } })}\n`,
      { chunkSizes: [65_537] },
    ).received;
    expect(blobs.isMarker(message.params.data)).toBe(true);
    expect(decode(message.params.data, blobs)!.equals(bytes)).toBe(true);
    blobs.dispose();
  }
  // (The two alphabets mixed are decoded, as Node does: '-' and '+' mean the same 6 bits.)
  for (const broken of [
    `${big('A', 500_000)}!AAA`,
    `${big('A', 500_001)}`,
    `${big('A', 300_000)}A=AA`,
    `${big('A', 300_000)}AA A`,
  ]) {
    const [{ message, blobs }] = readLines<{ params: { data: string } }>(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: broken } })}\n`,
    ).received;
    expect(decode(message.params.data, blobs)).toBeUndefined();
    expect(blobs.deliver(message).params.data).toBe(broken);
  }
});

test('a literal whose opening quote ends a chunk decodes all the same (its first piece is empty)', () => {
  const bytes = Buffer.alloc(400_000, 7);
  const line = `${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: bytes.toString('base64') } })}\n`;
  const [{ message, blobs }] = readLines<{ params: { data: string } }>(line, {
    chunkSizes: [line.indexOf('"data":"') + '"data":"'.length, 65_536],
  }).received;
  const view = blobs.view(message.params.data)!;
  expect(decodeBase64PiecesStrict(view.pieces(), view.length)!.equals(bytes)).toBe(true);
  blobs.dispose();
});

test('two literals are the same by their bytes, kept or not, whatever pieces they arrived in', () => {
  const data = `${big('A', BLOB_LITERAL_BYTES)}BCD`;
  const other = `${big('A', BLOB_LITERAL_BYTES)}BCE`;
  const message = { jsonrpc: '2.0', method: 'x', params: { a: data, b: data, c: other, d: `${data}E` } };
  for (const chunkSize of [65536, 7, 1_000_003]) {
    const { received } = readLines<typeof message>(`${JSON.stringify(message)}\n`, { chunkSizes: [chunkSize] });
    const [{ message: parsed, blobs }] = received;
    const { a, b, c, d } = parsed.params;
    expect(blobs.same(a, b)).toBe(true);
    expect(blobs.same(a, data)).toBe(true);
    expect(blobs.same(data, b)).toBe(true);
    expect(blobs.same(a, c)).toBe(false);
    expect(blobs.same(a, other)).toBe(false);
    expect(blobs.same(a, d)).toBe(false);
    expect(blobs.same('short', 'short')).toBe(true);
    expect(blobs.same('short', 'shorT')).toBe(false);
    blobs.deliver(parsed);
  }
});
