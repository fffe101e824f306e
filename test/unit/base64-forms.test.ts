// How a base64 literal is written, told from the string alone (canonicalEncoding) where the pipeline used to encode the
// decoded bytes again and compare: the two must never disagree, or a literal would come back changed.
import fc from 'fast-check';
import { formOf } from '../../src/artifacts/literals.js';
import { canonicalEncoding, decodeBase64Strict, encodePayload, PAYLOAD_ENCODINGS } from '../../src/codec/base64.js';

const BASE64_FORMS = PAYLOAD_ENCODINGS.filter((encoding) => encoding !== 'utf8');

/** Ways a literal strays from the standard forms and still decodes (or not): each one the string check must catch. */
const variants = (s: string): string[] => [
  s,
  s.replace(/.{8}/g, '$&\n'), // wrapped
  s.replace(/.{4}/g, '$&\r\n'),
  `${s}\n`,
  s.replace(/=/g, ''),
  s.replace(/\+/, '-'), // both alphabets
  s.replace(/\//, '_'),
  s.replace(/[A-Za-z0-9](?==*$)/, (c) =>
    c === 'A' ? 'B' : c === 'Q' ? 'R' : String.fromCharCode(c.charCodeAt(0) ^ 1),
  ), // stray bits
  `${s}=`,
];

test('a string the bytes strictly decode from: its form, when told, is the one the encode-and-compare finds', () => {
  let told = 0;
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.constantFrom(...BASE64_FORMS), (raw, form) => {
      const bytes = Buffer.from(raw);
      for (const literal of variants(encodePayload(bytes, form))) {
        const decoded = decodeBase64Strict(literal);
        if (!decoded) continue;
        const fast = canonicalEncoding(literal, decoded.length);
        const slow = formOf(literal, 0, literal.length, decoded);
        const slowEncoding = slow && 'encoding' in slow ? slow.encoding : undefined;
        if (fast !== undefined) {
          told++;
          expect(encodePayload(decoded, fast)).toBe(literal);
          expect(fast).toBe(slowEncoding);
        } else {
          expect(slowEncoding === undefined || slowEncoding === 'utf8').toBe(true);
        }
      }
    }),
    { numRuns: 3000 },
  );
  expect(told).toBeGreaterThan(3000);
});

test('every standard form of any bytes is told from the string alone', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.constantFrom(...BASE64_FORMS), (raw, form) => {
      const bytes = Buffer.from(raw);
      const literal = encodePayload(bytes, form);
      const told = canonicalEncoding(literal, bytes.length);
      // Without + / - _ or padding two forms write the same text; the one named must give it back.
      expect(told).toBeDefined();
      expect(encodePayload(bytes, told!)).toBe(literal);
    }),
    { numRuns: 2000 },
  );
});

test.each([
  ['QQ==', 1, 'base64'],
  ['QR==', 1, undefined], // stray bits a decoder ignores
  ['QUI=', 2, 'base64'],
  ['QUJ=', 2, undefined],
  ['QUI', 2, 'base64-unpadded'],
  ['+/-_', 3, undefined],
  ['-_8A', 3, 'base64url-unpadded'],
  ['QUJD\n', 3, undefined],
  ['QUJD=', 3, undefined],
])('%j of %i bytes is written as %s', (literal, size, form) => {
  expect(canonicalEncoding(literal, size)).toBe(form);
});
