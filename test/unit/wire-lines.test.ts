// The reader of newline-delimited JSON-RPC on stdio (src/wire/lines.ts): lines however the chunks fall, in linear
// time, as frames whose text is the line itself; noise and oversized lines reported and skipped; and with literal
// cutting on, long string literals kept out of the text as the frame's blobs, put back when the frame is written.
import { afterEach, describe, expect, test } from '@jest/globals';
import type { Frame } from '../../src/wire/frame.js';
import { LineReader } from '../../src/wire/lines.js';

const readers: LineReader[] = [];

afterEach(() => {
  // Whatever a test did not deliver on purpose was let go: no reader's table holds a blob.
  for (const reader of readers.splice(0)) expect(reader.table?.outstanding ?? 0).toBe(0);
});

function collect(maxBytes?: number, cut?: { blobBytes: number }) {
  const frames: Frame[] = [];
  const noise: string[] = [];
  const oversize: number[] = [];
  const reader = new LineReader(
    {
      frame: (frame) => frames.push(frame),
      noise: (line, reason) => noise.push(`${reason}: ${line}`),
      oversize: (n) => oversize.push(n),
    },
    maxBytes,
    cut !== undefined,
    cut?.blobBytes,
  );
  readers.push(reader);
  /** Pushes `text` in chunks of `size` bytes. */
  const push = (text: string | Buffer, size = Infinity) => {
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    for (let at = 0; at < bytes.length; at += size) reader.push(bytes.subarray(at, at + size));
  };
  return { reader, push, frames, noise, oversize };
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

describe('LineReader', () => {
  test('splits frames at newlines, LF or CRLF, however the chunks fall; each frame encodes to its line', () => {
    const lines = [
      JSON.stringify(ping),
      '{ "jsonrpc" : "2.0", "id" : 2, "method" : "tools/call", "params" : { "n" : 1.0, "s" : "\\u00e9" } }',
      '{"jsonrpc":"2.0","id":3,"result":{}}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}',
    ];
    const text = `${lines[0]}\n${lines[1]}\r\n${lines[2]}\n${lines[3]}\r\n`;
    for (const size of [1, 2, 7, 64, text.length]) {
      const { push, frames, noise } = collect();
      push(text, size);
      expect(noise).toEqual([]);
      expect(frames.map((f) => f.encode())).toEqual(lines);
      expect(frames.map((f) => f.kind)).toEqual(['request', 'request', 'response', 'notification']);
      expect(frames[1]!.message).toEqual({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { n: 1, s: 'é' },
      });
      // Written on a line-delimited wire, a line is still one line.
      expect(frames.map((f) => f.chunks(true).join(''))).toEqual(lines);
    }
  });

  test('a line is handed on only when its newline arrives', () => {
    const { push, frames } = collect();
    push(JSON.stringify(ping));
    expect(frames).toEqual([]);
    push('\n');
    expect(frames.map((f) => f.message)).toEqual([ping]);
  });

  test('keeps multi-byte characters split across chunks intact', () => {
    const { reader, frames } = collect();
    const line = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { s: 'héllo 🌍' } });
    const bytes = Buffer.from(`${line}\n`);
    const cut = bytes.indexOf(0xf0) + 2;
    reader.push(bytes.subarray(0, cut));
    reader.push(bytes.subarray(cut));
    expect(frames.map((f) => f.message)).toEqual([{ jsonrpc: '2.0', method: 'x', params: { s: 'héllo 🌍' } }]);
    expect(frames[0]!.encode()).toBe(line);
  });

  test('reads a long line in many small chunks in linear time', () => {
    // Joining the chunks so far on every chunk (what the SDK's ReadBuffer does) copies 8192²/2 chunks of 2 KiB for
    // this line: tens of gigabytes, minutes. Kept as a list and joined once, it is a few milliseconds of copying.
    const payload = 'x'.repeat(16 * 1024 * 1024);
    const line = `{"jsonrpc":"2.0","id":9,"result":{"data":"${payload}"}}`;
    const { push, frames } = collect();
    const started = performance.now();
    push(`${line}\n`, 2048);
    const elapsed = performance.now() - started;
    expect(frames).toHaveLength(1);
    expect((frames[0]!.message.result as { data: string }).data.length).toBe(payload.length);
    expect(elapsed).toBeLessThan(3000);
  });

  test('reports lines that are not JSON, or JSON but not JSON-RPC 2.0, as noise and goes on; blank lines are skipped', () => {
    const { push, frames, noise } = collect();
    push(
      [
        'Starting server...',
        '',
        '\r',
        '{"log":"x"}',
        '[1,2]',
        '{"jsonrpc":"1.0","id":1,"method":"ping"}',
        '{"jsonrpc":"2.0","id":1}',
        '"2.0"',
        JSON.stringify(ping),
        '',
      ].join('\n'),
    );
    expect(frames.map((f) => f.message)).toEqual([ping]);
    expect(noise).toEqual([
      'not JSON: Starting server...',
      'JSON but not JSON-RPC 2.0: {"log":"x"}',
      'JSON but not JSON-RPC 2.0: [1,2]',
      'JSON but not JSON-RPC 2.0: {"jsonrpc":"1.0","id":1,"method":"ping"}',
      'JSON but not JSON-RPC 2.0: {"jsonrpc":"2.0","id":1}',
      'JSON but not JSON-RPC 2.0: "2.0"',
    ]);
  });

  test('discards a line over the limit, reports its size, and recovers at the next newline', () => {
    const { push, frames, oversize } = collect(100);
    push('x'.repeat(80));
    push('x'.repeat(80));
    push(`xx\n${JSON.stringify(ping)}\n`);
    expect(oversize).toEqual([162]);
    expect(frames.map((f) => f.message)).toEqual([ping]);
  });

  test('a line at the limit is read', () => {
    const line = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { s: 'y'.repeat(50) } });
    const { push, frames, oversize } = collect(line.length);
    push(`${line.slice(0, 10)}`);
    push(`${line.slice(10)}\n`);
    expect(oversize).toEqual([]);
    expect(frames.map((f) => f.encode())).toEqual([line]);
  });

  test('reset drops a partial line and says how much', () => {
    const { reader, push, frames } = collect();
    push('{"jsonrpc":"2.0",');
    expect(reader.reset()).toBe(17);
    push(`${JSON.stringify(ping)}\n`);
    expect(frames.map((f) => f.message)).toEqual([ping]);
    expect(reader.reset()).toBe(0);
  });

  test('numbers a double cannot hold are read exact and written back as they came', () => {
    const line = '{"jsonrpc":"2.0","id":12345678901234567890123,"result":{"n":1e400,"z":-0}}';
    const { push, frames } = collect();
    push(`${line}\n`);
    expect(frames[0]!.kind).toBe('response');
    expect(frames[0]!.encode()).toBe(line);
    expect(JSON.stringify(frames[0]!.message)).toBe(line);
  });
});

describe('LineReader with long literals cut out as blobs', () => {
  const BLOB = 64;
  const long = (char: string, n = BLOB * 3) => char.repeat(n);

  // Only a literal that spans chunks is cut out (one within its chunk is no copy to avoid): the pushes below are small.
  test('a long literal arrives as a blob of its frame, a marker in its place; encode() restores the line', () => {
    const line = `{"jsonrpc":"2.0", "id":4, "result":{"content":[{"type":"image","data":"${long('A')}"},{"type":"text","text":"${long('Z')}"}],"n":1.0}}`;
    for (const size of [3, 50]) {
      const { push, frames } = collect(undefined, { blobBytes: BLOB });
      push(`${line}\n`, size);
      const [frame] = frames;
      expect(frames).toHaveLength(1);
      expect(frame!.blobs.size).toBe(2);
      const [image, text] = (frame!.message.result as { content: Array<{ data?: string; text?: string }> }).content;
      expect(frame!.blobs.isMarker(image!.data)).toBe(true);
      expect(frame!.blobs.view(image!.data)!.length).toBe(BLOB * 3);
      expect(frame!.blobs.isMarker(text!.text)).toBe(true);
      expect(image!.data!.length).toBeLessThan(BLOB);
      // Written out, the bytes go back where the markers stand: the very line.
      expect(frame!.encode()).toBe(line);
      expect(Buffer.concat(frame!.chunks(true).map((c) => (typeof c === 'string' ? Buffer.from(c) : c)))).toEqual(
        Buffer.from(line),
      );
      expect(frame!.blobs.restore(frame!.message)).toEqual(JSON.parse(line));
      frame!.blobs.dispose();
    }
    // In one chunk, nothing is cut, and the line is the same.
    const { push, frames } = collect(undefined, { blobBytes: BLOB });
    push(`${line}\n`);
    expect(frames[0]!.blobs.size).toBe(0);
    expect(frames[0]!.encode()).toBe(line);
  });

  test('a blob whose multi-byte characters were split between chunks is put back whole, by encode() too', () => {
    const line = `{"jsonrpc":"2.0","id":5,"result":{"text":"${long('é')} and ${long('🌍')}"}}`;
    const { push, frames } = collect(undefined, { blobBytes: BLOB });
    // 7-byte chunks split the 2-byte é and the 4-byte 🌍 all along the literal.
    push(`${line}\n`, 7);
    const [frame] = frames;
    expect(frame!.blobs.size).toBe(1);
    expect(frame!.blobs.restore(frame!.message)).toEqual(JSON.parse(line));
    const bytes = Buffer.concat(frame!.chunks(true).map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
    expect(bytes.toString('utf8')).toBe(line);
    const encoded = frame!.encode();
    frame!.blobs.dispose();
    expect(encoded).toBe(line);
  });

  test('short literals stay in the text; the next frame has no blobs of the one before', () => {
    const { push, frames } = collect(undefined, { blobBytes: BLOB });
    push(
      `{"jsonrpc":"2.0","method":"a","params":{"d":"${long('B')}"}}\n{"jsonrpc":"2.0","method":"b","params":{"d":"short"}}\n`,
      16,
    );
    expect(frames.map((f) => f.blobs.size)).toEqual([1, 0]);
    expect(frames[1]!.message.params).toEqual({ d: 'short' });
    frames[0]!.blobs.dispose();
  });

  test('a frame that keeps its blobs holds them in its table until they are let go', () => {
    const { reader, push, frames } = collect(undefined, { blobBytes: BLOB });
    push(`{"jsonrpc":"2.0","method":"a","params":{"d":"${long('C')}","e":"${long('D')}"}}\n`, 16);
    expect(reader.table!.outstanding).toBe(2);
    frames[0]!.blobs.dispose();
    expect(reader.table!.outstanding).toBe(0);
  });

  test('a noise line, an oversized one and a partial one reset let go of what was kept while they were read', () => {
    const { reader, push, frames, noise, oversize } = collect(BLOB * 10, { blobBytes: BLOB });
    push(`{"data":"${long('E')}"}\n`, 16);
    expect(noise).toHaveLength(1);
    expect(reader.table!.outstanding).toBe(0);
    push(`{"jsonrpc":"2.0","method":"x","params":{"data":"${long('E')}"}} and then some\n`, 16);
    expect(noise).toHaveLength(2);
    expect(noise[1]).toMatch(/^not JSON: /);
    expect(reader.table!.outstanding).toBe(0);
    push(`{"jsonrpc":"2.0","method":"x","params":{"a":"${long('F')}","b":"${long('G', BLOB * 20)}"}}\n`, 16);
    expect(oversize).toHaveLength(1);
    expect(reader.table!.outstanding).toBe(0);
    push(`{"jsonrpc":"2.0","method":"x","params":{"a":"${long('H')}",`, 16);
    expect(reader.table!.outstanding).toBe(1);
    expect(reader.reset()).toBeGreaterThan(0);
    expect(reader.table!.outstanding).toBe(0);
    push(`${JSON.stringify(ping)}\n`);
    expect(frames.map((f) => f.message)).toEqual([ping]);
  });
});
