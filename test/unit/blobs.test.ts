import { BLOB_LINE_BYTES, BLOB_LITERAL_BYTES, blobBytes, cutLongLiterals, isBlobMarker, outstandingBlobs, restoreBlobs } from '../../src/transports/blobs.js';
import { JsonLineReader } from '../../src/transports/json-lines.js';

const big = (char: string, n = BLOB_LITERAL_BYTES + 10) => char.repeat(n);

function read(line: string, cut = true): unknown[] {
  const messages: unknown[] = [];
  const reader = new JsonLineReader({ message: (m) => messages.push(m), noise: () => undefined, oversize: () => undefined }, undefined, cut);
  reader.push(Buffer.from(`${line}\n`));
  return messages;
}

afterEach(() => {
  // Every test restores what it cut, so none is left over for the next.
  expect(outstandingBlobs()).toBe(0);
});

test('long escape-free literals of a long line become markers, and restore to the very same message', () => {
  const message = {
    jsonrpc: '2.0',
    id: 7,
    result: { content: [{ type: 'image', mimeType: 'image/png', data: big('A') }, { type: 'text', text: `${big('é', BLOB_LITERAL_BYTES)} ü` }], pad: big('p', BLOB_LINE_BYTES) },
  };
  const [parsed] = read(JSON.stringify(message)) as [typeof message];
  expect(isBlobMarker(parsed.result.content[0].data)).toBe(true);
  expect(blobBytes(parsed.result.content[0].data as string)!.length).toBe(BLOB_LITERAL_BYTES + 10);
  expect(isBlobMarker(parsed.result.content[1].text)).toBe(true);
  expect(parsed.id).toBe(7);
  expect(restoreBlobs(parsed)).toEqual(message);
});

test('literals with escapes, short literals and short lines are left alone', () => {
  const escaped = { jsonrpc: '2.0', method: 'x', params: { text: `${big('a', BLOB_LINE_BYTES)}"quoted"\\n` } };
  const [parsed] = read(JSON.stringify(escaped));
  expect(parsed).toEqual(escaped);
  const short = { jsonrpc: '2.0', method: 'x', params: { data: big('B') } };
  expect(read(JSON.stringify(short))[0]).toEqual(short);
  expect(cutLongLiterals(Buffer.from('{"a":"b"}'))).toBeUndefined();
});

test('without cutting, the reader parses as usual', () => {
  const message = { jsonrpc: '2.0', method: 'x', params: { data: big('C', BLOB_LINE_BYTES) } };
  expect(read(JSON.stringify(message), false)[0]).toEqual(message);
});

test('restoring leaves objects without markers as the same objects', () => {
  const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } };
  expect(restoreBlobs(message)).toBe(message);
});

test('a marked payload decodes from its bytes, a few megabytes at a time, exactly like the string would', async () => {
  const { decodeBase64Strict } = await import('../../src/pipeline/decode.js');
  const bytes = Buffer.alloc(9 * 1024 * 1024 + 7);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  for (const encoded of [bytes.toString('base64'), bytes.toString('base64url')]) {
    const [parsed] = read(JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: encoded } })) as [{ params: { data: string } }];
    expect(isBlobMarker(parsed.params.data)).toBe(true);
    expect(decodeBase64Strict(parsed.params.data)!.equals(bytes)).toBe(true);
    restoreBlobs(parsed);
  }
  const [broken] = read(JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { data: `${big('A', 5_000_000)}!AAA` } })) as [{ params: { data: string } }];
  expect(decodeBase64Strict(broken.params.data)).toBeUndefined();
  restoreBlobs(broken);
});
