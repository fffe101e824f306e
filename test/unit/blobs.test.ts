import {
  BLOB_LITERAL_BYTES,
  blobLength,
  isBlobMarker,
  outstandingBlobs,
  restoreBlobs,
} from '../../src/transports/blobs.js';
import { JsonLineReader } from '../../src/transports/json-lines.js';
import { LiteralCutter } from '../../src/transports/literal-cutter.js';
import { decodeBase64Strict } from '../../src/pipeline/decode.js';

const big = (char: string, n = BLOB_LITERAL_BYTES + 10) => char.repeat(n);

/** Feeds text through a cutter and a reader, in chunks of `chunkSize` bytes, as a pipe would. */
function read(text: string, { chunkSize = 65536, max = 512 * 1024 * 1024 } = {}) {
  const messages: unknown[] = [];
  const oversize: number[] = [];
  const reader = new JsonLineReader(
    { message: (m) => messages.push(m), noise: () => undefined, oversize: (n) => oversize.push(n) },
    max,
  );
  const cutter = new LiteralCutter((bytes) => reader.push(bytes), max);
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunkSize) cutter.push(bytes.subarray(i, i + chunkSize));
  return { messages, oversize };
}

afterEach(() => {
  // Every test restores what it cut, so none is left over for the next.
  expect(outstandingBlobs()).toBe(0);
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
    const { messages } = read(`${JSON.stringify(message)}\n${JSON.stringify(second)}\n`, { chunkSize });
    const [parsed, next] = messages as [typeof message, unknown];
    if (chunkSize < BLOB_LITERAL_BYTES) {
      expect(isBlobMarker(parsed.result.content[0].data)).toBe(true);
      expect(blobLength(parsed.result.content[0].data!)).toBe(BLOB_LITERAL_BYTES + 10);
      expect(isBlobMarker(parsed.result.content[1].text)).toBe(true);
    }
    expect(parsed.result.content[2]).toEqual(message.result.content[2]);
    expect(next).toEqual(second);
    expect(restoreBlobs(parsed)).toEqual(message);
  }
});

test('a long literal with escapes, even one split right after a backslash, passes unchanged', () => {
  const text = `${big('a', BLOB_LITERAL_BYTES * 2)}\\"quoted\\" and a backslash \\\\ at the end\\\\`;
  const message = { jsonrpc: '2.0', method: 'x', params: { text: JSON.parse(`"${text}"`) } };
  const line = JSON.stringify(message);
  const split = line.indexOf('\\"') + 1;
  const { messages } = read(`${line}\n`, { chunkSize: split });
  expect(messages).toEqual([message]);
});

test('a literal over the message limit is passed on, for the line limit to refuse', () => {
  const { messages, oversize } = read(
    `${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: big('B', 2_000_000) } })}\n{"jsonrpc":"2.0","method":"y"}\n`,
    {
      max: 1_000_000,
    },
  );
  expect(oversize).toHaveLength(1);
  expect(messages).toEqual([{ jsonrpc: '2.0', method: 'y' }]);
});

test('restoring leaves objects without markers as the same objects', () => {
  const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } };
  expect(restoreBlobs(message)).toBe(message);
});

test('a marked payload decodes from its pieces exactly like the string would; bad base64 is refused', () => {
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 7);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  for (const encoded of [bytes.toString('base64'), bytes.toString('base64url')]) {
    const { messages } = read(`${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: encoded } })}\n`, {
      chunkSize: 65_537,
    });
    const [parsed] = messages as [{ params: { data: string } }];
    expect(isBlobMarker(parsed.params.data)).toBe(true);
    expect(decodeBase64Strict(parsed.params.data)!.equals(bytes)).toBe(true);
    restoreBlobs(parsed);
  }
  // (The two alphabets mixed are decoded, as Node does: '-' and '+' mean the same 6 bits.)
  for (const broken of [
    `${big('A', 500_000)}!AAA`,
    `${big('A', 500_001)}`,
    `${big('A', 300_000)}A=AA`,
    `${big('A', 300_000)}AA A`,
  ]) {
    const { messages } = read(`${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: broken } })}\n`);
    const [parsed] = messages as [{ params: { data: string } }];
    expect(decodeBase64Strict(parsed.params.data)).toBeUndefined();
    expect(restoreBlobs(parsed).params.data).toBe(broken);
  }
});
