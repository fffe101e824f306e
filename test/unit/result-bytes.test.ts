// The bytes of a result's JSON as it leaves the proxy (src/pipeline/result-bytes.ts), summed value by value: the
// same count as writing the JSON out and measuring it, for every kind of JSON value and string, payloads kept as
// bytes included; and a lower bound from lengths alone that is never above it.
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { BlobTable } from '../../src/wire/blob-table.js';
import { BlobView } from '../../src/wire/blob-view.js';
import { Blobs } from '../../src/wire/blobs.js';
import { jsonBytes, jsonBytesAtLeast } from '../../src/pipeline/result-bytes.js';

/** The measure before: the JSON written out, markers put back, in UTF-8 bytes. */
function written(value: unknown, blobs: Blobs): number {
  let bytes = 0;
  for (const piece of blobs.fill(JSON.stringify(value)))
    bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  return bytes;
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u2028', '\ud800', 'é', '🌍', 'QUJD'.repeat(50)),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('1e400', '12345678901234567890123', '-0').map((n) => JSON.rawJSON(n)),
    fc.array(fc.oneof(tie('v'), fc.constant(undefined)), { maxLength: 4 }),
    fc.dictionary(text, fc.oneof(tie('v'), fc.constant(undefined)), { maxKeys: 4 }),
  ),
})).v;

describe('jsonBytes', () => {
  test('counts what writing the JSON out counts, for any JSON value', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(jsonBytes(v, Blobs.NONE)).toBe(written(v, Blobs.NONE));
        expect(jsonBytesAtLeast(v, Blobs.NONE)).toBeLessThanOrEqual(written(v, Blobs.NONE));
      }),
      { numRuns: 3000 },
    );
  });

  test('a payload kept as bytes counts as the literal it stands for', () => {
    const table = new BlobTable();
    const raw = Buffer.from('QUJD'.repeat(1000), 'latin1');
    const marker = table.keep(new BlobView([raw.subarray(0, 7), raw.subarray(7)], raw.length));
    const blobs = table.takeMessageBlobs();
    const result = {
      content: [
        { type: 'image', data: marker, mimeType: 'image/png' },
        { type: 'text', text: 'a caption' },
      ],
    };
    expect(jsonBytes(result, blobs)).toBe(written(result, blobs));
    expect(jsonBytes(result, blobs)).toBeGreaterThan(raw.length);
    expect(jsonBytesAtLeast(result, blobs)).toBeGreaterThan(raw.length);
    expect(jsonBytesAtLeast(result, blobs)).toBeLessThanOrEqual(jsonBytes(result, blobs));
  });

  test('what is not plain JSON data is measured by writing it', () => {
    const odd = { when: new Date(0), custom: { toJSON: () => 'x' }, list: [() => 1, undefined] };
    expect(jsonBytes(odd, Blobs.NONE)).toBe(written(odd, Blobs.NONE));
    expect(jsonBytesAtLeast(odd, Blobs.NONE)).toBeLessThanOrEqual(written(odd, Blobs.NONE));
  });
});
