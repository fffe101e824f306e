// JSON carried in a JSON string, read by the stdio cutter: its long inner strings are kept as bytes
// with their markers inlaid in the text (wire/inlay.ts). Restored, every message must be the one
// that was sent; parsed, the inner JSON must hold a marker exactly where a long plain string value was.
import fc from 'fast-check';
import { findInlayRuns } from '../../src/wire/inlay.js';
import { blobsLeftOver, readLines, type ReadMessage } from '../helpers/blob-reader.js';

/** Small, so that generated strings cross it. */
const BLOB = 24;

interface Message {
  jsonrpc: '2.0';
  id: number;
  result: { content: { type: 'text'; text: string }[] };
}

/** Sends a line through a cutter and a reader in the given chunk sizes (cycled), as a pipe would. */
function read(line: string, chunkSizes: number[]): ReadMessage<Message>[] {
  return readLines<Message>(line, { chunkSizes, max: 1 << 30, blobBytes: BLOB }).received;
}

const messageWith = (text: string): Message => ({
  jsonrpc: '2.0',
  id: 1,
  result: { content: [{ type: 'text', text }] },
});

/** Every string value of a JSON value with its path; keys too, marked as such. */
function stringsOf(
  value: unknown,
  path: (string | number)[] = [],
  out: { path: string; value: string; key: boolean }[] = [],
) {
  if (typeof value === 'string') out.push({ path: JSON.stringify(path), value, key: false });
  else if (Array.isArray(value)) value.forEach((item, i) => stringsOf(item, [...path, i], out));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push({ path: JSON.stringify([...path, key]), value: key, key: true });
      stringsOf(item, [...path, key], out);
    }
  }
  return out;
}

afterEach(() => {
  expect(blobsLeftOver()).toBe(0);
});

test('the Tableau shape: the payload is kept, name and format stay in the text', () => {
  const payload = 'JVBERi0xLjQK'.repeat(20);
  const inner = { name: 'report', format: 'pdf', content: payload };
  const [{ message, blobs }] = read(`${JSON.stringify(messageWith(JSON.stringify(inner)))}\n`, [7]);
  const doc = JSON.parse(message.result.content[0].text);
  expect(doc.name).toBe('report');
  expect(blobs.view(doc.content)!.text()).toBe(payload);
  expect(blobs.deliver(message)).toEqual(messageWith(JSON.stringify(inner)));
});

test('keys, strings with inner escapes, and text that is not JSON keep their bytes in the text', () => {
  const long = 'x'.repeat(40);
  for (const text of [
    JSON.stringify({ [long]: 1 }),
    JSON.stringify({ a: `${long}\n${long}`, b: `${long}"${long}`, c: `${long}\\${long}` }),
    `He said "${long}" and left`,
    `${long} "${long}`,
  ]) {
    const [{ message, blobs }] = read(`${JSON.stringify(messageWith(text))}\n`, [5]);
    expect(message).toEqual(messageWith(text));
    expect(blobs.size).toBe(0);
  }
});

test('an outer literal that escapes quotes as \\u0022 (as .NET does) is read right', () => {
  const long = 'y'.repeat(40);
  const outer = JSON.stringify(JSON.stringify({ a: long, b: [long] })).replace(/\\"/g, '\\u0022');
  const line = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":${outer}}]}}\n`;
  const [{ message, blobs }] = read(line, [9]);
  const doc = JSON.parse(message.result.content[0].text);
  expect(blobs.isMarker(doc.a) && blobs.isMarker(doc.b[0])).toBe(true);
  expect(blobs.deliver(message)).toEqual(JSON.parse(line));
});

test('a literal that is cut short or holds a bad escape finds no runs', () => {
  expect(findInlayRuns([Buffer.from('\\"abc\\u00')], 1)).toEqual([]);
  expect(findInlayRuns([Buffer.from('\\"abc\\"'), Buffer.from(',\\')], 1)).toEqual([]);
  expect(findInlayRuns([Buffer.from('{\\"a\\":\\"'), Buffer.from('abc'), Buffer.from('def\\"}')], 6)).toEqual([
    { start: 9, end: 15 },
  ]);
});

describe('properties', () => {
  const chars = fc.constantFrom(
    'A',
    'z',
    '9',
    '+',
    '/',
    '=',
    ' ',
    ':',
    ',',
    '"',
    '\\',
    '\n',
    '\t',
    '\u0001',
    'é',
    '€',
    '\u2028',
    '\ud83d\ude00',
  );
  const anyString = fc.oneof(
    fc.string({ unit: chars, maxLength: 50 }),
    fc.string({ unit: 'binary', maxLength: 50 }),
    fc.base64String({ minLength: BLOB, maxLength: 90 }),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      anyString,
      fc.integer(),
      fc.constant(null),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(anyString, tie('node'), { maxKeys: 4 }),
    ),
  })).node;
  const innerText = fc.oneof(
    fc.tuple(value, fc.constantFrom(undefined, 1, '\t')).map(([doc, space]) => JSON.stringify(doc, null, space)),
    anyString,
  );
  const chunkSizes = fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 });

  test('restored, every message is the one sent, whatever the chunks', () => {
    fc.assert(
      fc.property(fc.array(innerText, { minLength: 1, maxLength: 3 }), chunkSizes, (texts, sizes) => {
        const sent = texts.map(messageWith);
        const received = read(sent.map((m) => `${JSON.stringify(m)}\n`).join(''), sizes);
        expect(received.map(({ message, blobs }) => blobs.deliver(message))).toEqual(sent);
      }),
      { numRuns: 400 },
    );
  });

  test('parsed, the inner JSON has a marker exactly where a long plain string value was', () => {
    let kept = 0;
    fc.assert(
      fc.property(value, chunkSizes, (doc, sizes) => {
        const text = JSON.stringify(doc);
        const [{ message, blobs }] = read(`${JSON.stringify(messageWith(text))}\n`, sizes);
        const received = message.result.content[0].text;
        // Nothing kept (the literal fit in one chunk, or had no run), or all of it (it had no escape).
        if (received === text || blobs.isMarker(received)) return void blobs.deliver(message);
        kept++;
        const before = stringsOf(doc);
        const after = stringsOf(JSON.parse(received));
        expect(after.map((s) => s.path)).toEqual(before.map((s) => s.path));
        after.forEach((s, i) => {
          const view = blobs.view(s.value);
          if (!view) return expect(s.value).toBe(before[i].value);
          expect(s.key).toBe(false);
          expect(view.text()).toBe(before[i].value);
          expect(before[i].value.length).toBeGreaterThanOrEqual(BLOB / 4); // at least BLOB bytes of UTF-8
          expect(JSON.stringify(before[i].value)).toBe(`"${before[i].value}"`); // written without escapes
        });
        blobs.deliver(message);
      }),
      { numRuns: 400 },
    );
    expect(kept).toBeGreaterThan(40); // the generator does reach the interesting case
  });
});
