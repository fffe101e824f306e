import fc from 'fast-check';
import { parseTree, type Node } from 'jsonc-parser';
import {
  ExactNumberStream,
  exactNumberText,
  markExactNumbers,
  numbersAsDoubles,
  parseExact,
  restoreExactNumbers,
  stringifyExact,
} from '../../src/codec/exact-numbers.js';

/** The number tokens of a JSON text, in order, as written (jsonc-parser keeps each node's place in the text). */
function numberTokens(text: string): string[] {
  const tokens: string[] = [];
  const visit = (node: Node | undefined) => {
    if (!node) return;
    if (node.type === 'number') tokens.push(text.slice(node.offset, node.offset + node.length));
    for (const child of node.children ?? []) visit(child);
  };
  visit(parseTree(text));
  return tokens;
}

const roundTrip = (text: string) => stringifyExact(parseExact(text));

describe('exact numbers: what a double would change is carried as written', () => {
  test.each([
    ['an integer past 2^53 (9007199254740993)', '9007199254740993'],
    ['a 23-digit integer (12345678901234567890123)', '12345678901234567890123'],
    ['the largest unsigned 64-bit integer (18446744073709551615)', '18446744073709551615'],
    ['the smallest signed 64-bit integer (-9223372036854775808)', '-9223372036854775808'],
    [
      'a decimal with more digits than a double holds (0.1000000000000000055511151231257827)',
      '0.1000000000000000055511151231257827',
    ],
    ['an overflow (1e400)', '1e400'],
    ['an overflow written long (-1 and 400 zeros)', '-1' + '0'.repeat(400)],
    ['an underflow (1e-400)', '1e-400'],
    ['negative zero (-0)', '-0'],
    ['negative zero with a fraction and an exponent (-0.000e+10)', '-0.000e+10'],
  ])('%s comes back as written, in an object, an array and at the top', (_, token) => {
    for (const text of [`{"n":${token}}`, `[1,${token},2]`, token]) expect(roundTrip(text)).toBe(text);
  });

  test.each([
    ['42'],
    ['0.5'],
    ['-12.75'],
    ['1234567890123456'],
    ['9007199254740992'],
    ['1e21'],
    ['0.1'],
    ['2.5e-300'],
    ['0'],
    ['0.0e5'],
  ])('%s is a number a double holds: nothing is marked, and it parses to the number', (token) => {
    const text = `{"n":${token}}`;
    expect(markExactNumbers(text)).toBe(text);
    expect(parseExact(text)).toEqual({ n: Number(token) });
  });

  test('a marked number is a marker string between reader and writer, and says what it stands for', () => {
    const doc = parseExact('{"id":12345678901234567890123}') as { id: unknown };
    expect(typeof doc.id).toBe('string');
    expect(exactNumberText(doc.id)).toBe('12345678901234567890123');
    expect(exactNumberText('12345678901234567890123')).toBeUndefined();
    expect(exactNumberText(42)).toBeUndefined();
  });

  test('numbers inside strings are never touched, escaped quotes and backslashes included', () => {
    const text =
      '{"s":"12345678901234567890123 -0 1e400","t":"\\"99999999999999999999\\\\","u":"\\\\\\"-0","v":99999999999999999999}';
    expect(roundTrip(text)).toBe(text);
  });

  test('a string that only looks like a marker (without this process’s nonce) is a string', () => {
    const text = '{"s":"mcp-offload:number:000000000000:12345678901234567890123"}';
    expect(roundTrip(text)).toBe(text);
  });

  test('a marker inside a longer string is left as text (it never becomes a number there)', () => {
    const marker = (parseExact('[12345678901234567890123]') as string[])[0];
    const json = JSON.stringify({ s: `value ${marker}`, t: `"${marker}"` });
    expect(JSON.parse(restoreExactNumbers(json))).toEqual({ s: `value ${marker}`, t: `"${marker}"` });
  });

  test('for an in-process server, markers become the doubles a JavaScript server would have read', () => {
    const doc = parseExact('{"a":[12345678901234567890123,{"b":1e400,"c":-0}],"d":"x","e":1,"__proto__":{"f":1e-400}}');
    const read = numbersAsDoubles(doc) as Record<string, unknown>;
    expect(JSON.stringify(read)).toBe(
      '{"a":[1.2345678901234568e+22,{"b":null,"c":0}],"d":"x","e":1,"__proto__":{"f":0}}',
    );
    expect(Object.is((read.a as [unknown, { c: number }])[1].c, -0)).toBe(true);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    const plain = { a: [1, 'x'], b: { c: 2 } };
    expect(numbersAsDoubles(plain)).toBe(plain);
  });

  test('an invalid text fails as JSON.parse fails on it', () => {
    for (const text of ['{"n":12345678901234567890123', '[-]', '{"n":-0', '{"n":1e400,}']) {
      expect(() => parseExact(text)).toThrow(SyntaxError);
    }
  });

  test('a stream cut anywhere, inside a marker included, writes the same text', () => {
    const doc = parseExact(`{"a":[${'12345678901234567890123,'.repeat(5)}1e400],"b":"x\\"y","c":-0}`);
    const whole = JSON.stringify(doc);
    const expected = restoreExactNumbers(whole);
    for (let size = 1; size <= 40; size += 3) {
      const stream = new ExactNumberStream();
      let out = '';
      for (let at = 0; at < whole.length; at += size) out += stream.push(whole.slice(at, at + size));
      out += stream.end();
      expect(out).toBe(expected);
    }
  });

  describe('properties', () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
    const sign = fc.constantFrom('', '-');
    /** Numbers a double holds by construction: at most 15 significant digits, a small exponent. */
    const safe = fc
      .tuple(
        sign,
        fc.integer({ min: 1, max: 9 }),
        digits(0, 6),
        fc.option(digits(1, 7)),
        fc.option(fc.integer({ min: -20, max: 20 })),
      )
      .map(
        ([s, first, rest, frac, exp]) => `${s}${first}${rest}${frac ? `.${frac}` : ''}${exp === null ? '' : `e${exp}`}`,
      );
    /** Numbers a double changes by construction: odd integers past 2^53, overflows, too small ones, negative zeros. */
    const fragile = fc.oneof(
      fc
        .tuple(sign, fc.integer({ min: 1, max: 9 }), digits(16, 30), fc.constantFrom('1', '3', '5', '7', '9'))
        .map(([s, first, middle, last]) => `${s}${first}${middle}${last}`),
      fc
        .tuple(sign, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 400, max: 9999 }))
        .map(([s, m, e]) => `${s}${m}e${e}`),
      fc
        .tuple(sign, fc.integer({ min: 1, max: 9 }), fc.integer({ min: 400, max: 9999 }))
        .map(([s, m, e]) => `${s}${m}e-${e}`),
      fc.constantFrom('-0', '-0.0', '-0e5', '-0.000E-3'),
    );
    const number = fc.oneof(
      safe.map((t) => ({ t, safe: true })),
      fragile.map((t) => ({ t, safe: false })),
    );
    const leaf = fc.oneof(
      number.map((n) => ({ text: n.t, numbers: [n] })),
      fc.string({ maxLength: 30 }).map((s) => ({ text: JSON.stringify(s), numbers: [] })),
      fc.constantFrom('true', 'false', 'null').map((text) => ({ text, numbers: [] })),
    );
    type Doc = { text: string; numbers: { t: string; safe: boolean }[] };
    const doc: fc.Arbitrary<Doc> = fc.letrec<{ doc: Doc }>((tie) => ({
      doc: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('doc'), { maxLength: 5 }).map((items) => ({
          text: `[${items.map((i) => i.text).join(',')}]`,
          numbers: items.flatMap((i) => i.numbers),
        })),
        fc
          .array(
            fc.tuple(
              fc.string({ maxLength: 10 }).map((k) => `k${k}`),
              tie('doc'),
            ),
            { maxLength: 5 },
          )
          .map((entries) => {
            const unique = [...new Map(entries).entries()];
            return {
              text: `{${unique.map(([k, v]) => `${JSON.stringify(k)}:${v.text}`).join(',')}}`,
              numbers: unique.flatMap(([, v]) => v.numbers),
            };
          }),
      ),
    })).doc;

    test('every number comes back with its value: one a double holds as JSON writes it, any other as written', () => {
      fc.assert(
        fc.property(doc, ({ text, numbers }) => {
          const out = roundTrip(text);
          expect(numberTokens(out)).toEqual(numbers.map((n) => (n.safe ? JSON.stringify(Number(n.t)) : n.t)));
        }),
        { numRuns: 500 },
      );
    });

    test('a text whose numbers a double holds parses exactly as JSON.parse parses it', () => {
      fc.assert(
        fc.property(
          doc.filter((d) => d.numbers.every((n) => n.safe)),
          ({ text }) => {
            expect(parseExact(text)).toEqual(JSON.parse(text));
          },
        ),
        { numRuns: 300 },
      );
    });

    test('a stream cut at any places writes what the whole text restores to', () => {
      fc.assert(
        fc.property(doc, fc.array(fc.nat(), { maxLength: 12 }), ({ text }, cuts) => {
          const whole = JSON.stringify(parseExact(text));
          const places = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
          const stream = new ExactNumberStream();
          let out = '';
          let from = 0;
          for (const at of [...places, whole.length]) {
            out += stream.push(whole.slice(from, at));
            from = at;
          }
          expect(out + stream.end()).toBe(restoreExactNumbers(whole));
        }),
        { numRuns: 500 },
      );
    });

    test('strings come back as they were, whatever numbers surround them', () => {
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.string({ maxLength: 40 }), fragile)), (pairs) => {
          const text = `[${pairs.map(([s, n]) => `${JSON.stringify(s)},${n}`).join(',')}]`;
          const back = JSON.parse(roundTrip(text)) as unknown[];
          expect(back.filter((v) => typeof v === 'string')).toEqual(pairs.map(([s]) => s));
        }),
        { numRuns: 300 },
      );
    });
  });
});
