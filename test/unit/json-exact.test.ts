// JSON text read so that every number keeps its value (src/wire/json.ts): a number whose decimal value the nearest
// double does not keep is read as `JSON.rawJSON(itsText)`, which `JSON.stringify` writes back exactly as it came;
// every other number is a plain number, and a text that cannot hold such a number is parsed without a reviver.
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import fc from 'fast-check';
import { parseTree, type Node } from 'jsonc-parser';
import { isExactNumber, numbersAsDoubles, parseJson, stringifyJson, textOf } from '../../src/wire/json.js';

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

/**
 * A number token's decimal value, exactly, as sign, significant digits and the power of ten of the last one
 * (worked out with strings and BigInt, never with a double): two tokens have the same value when these are equal.
 */
function decimalValue(token: string): string {
  const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!parts) throw new Error(`not a JSON number: ${token}`);
  const [, sign, whole, fraction = '', exponent = '0'] = parts;
  let digits = (whole! + fraction).replace(/^0+/, '');
  let power = BigInt(exponent) - BigInt(fraction.length);
  if (digits === '') return `${sign}0`;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  power += BigInt(trailing);
  return `${sign}${digits}e${power}`;
}

const roundTrip = (text: string) => JSON.stringify(parseJson(text));

afterEach(() => {
  jest.restoreAllMocks();
});

describe('numbers a double would change are kept as their text', () => {
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
  ])('%s: an exact number in an object, an array and at the top, written back as it came', (_, token) => {
    for (const text of [`{"n":${token}}`, `[1,${token},2]`, token]) expect(roundTrip(text)).toBe(text);
    const { n } = parseJson(`{"n":${token}}`) as { n: unknown };
    expect(isExactNumber(n)).toBe(true);
    expect(textOf(n)).toBe(token);
    // Opaque to the code in between: not a number, not a string, and nothing to change in it.
    expect(typeof n).toBe('object');
    expect(Object.isFrozen(n)).toBe(true);
  });

  test.each([
    ['42', 42],
    ['0.5', 0.5],
    ['-12.75', -12.75],
    ['1.0', 1],
    ['1e2', 100],
    ['1234567890123456', 1234567890123456],
    ['9007199254740992', 9007199254740992],
    ['1e21', 1e21],
    ['0.1', 0.1],
    ['2.5e-300', 2.5e-300],
    ['0', 0],
    ['0.0e5', 0],
  ])('%s is a number a double holds: read as the number %d', (token, value) => {
    const read = parseJson(`{"n":${token}}`) as { n: unknown };
    expect(isExactNumber(read.n)).toBe(false);
    expect(read.n).toBe(value);
    // Its value comes back (`1.0` as `1`, `1e2` as `100`: the same decimal value).
    expect(decimalValue(numberTokens(roundTrip(`{"n":${token}}`))[0]!)).toBe(decimalValue(token));
  });

  test('strings that look like numbers are never touched, escaped quotes and backslashes included', () => {
    const text =
      '{"s":"12345678901234567890123 -0 1e400","t":"\\"99999999999999999999\\\\","u":"\\\\\\"-0","v":99999999999999999999}';
    expect(roundTrip(text)).toBe(text);
    const read = parseJson(text) as Record<string, unknown>;
    expect(read.s).toBe('12345678901234567890123 -0 1e400');
    expect(read.t).toBe('"99999999999999999999\\');
    expect(read.u).toBe('\\"-0');
    expect(textOf(read.v)).toBe('99999999999999999999');
    // A string that only holds a suspect is a string; the numbers around it stay numbers.
    expect(parseJson('{"id":"9007199254740993","n":7}')).toEqual({ id: '9007199254740993', n: 7 });
  });

  test('a text without a suspect number is parsed without a reviver; one with a suspect, with one', () => {
    const parse = jest.spyOn(JSON, 'parse');
    expect(parseJson('{"a":[1,2.5,-3e10],"b":"x","c":-0.5}')).toEqual({ a: [1, 2.5, -3e10], b: 'x', c: -0.5 });
    expect(parse).toHaveBeenCalledTimes(1);
    expect(parse.mock.calls[0]).toHaveLength(1);
    parse.mockClear();
    parseJson('{"a":9007199254740993}');
    expect(parse).toHaveBeenCalledTimes(1);
    expect(typeof parse.mock.calls[0]![1]).toBe('function');
  });

  test('an object that only looks like an exact number is not one', () => {
    expect(isExactNumber({ rawJSON: '1' })).toBe(false);
    expect(isExactNumber('12345678901234567890123')).toBe(false);
    expect(isExactNumber(42)).toBe(false);
    expect(isExactNumber(null)).toBe(false);
    expect(isExactNumber(JSON.rawJSON('1'))).toBe(true);
  });

  test('an invalid text fails as JSON.parse fails on it, with a suspect or without', () => {
    for (const text of ['{"n":12345678901234567890123', '[-]', '{"n":-0', '{"n":1e400,}', '{"n":1', '', 'x']) {
      expect(() => parseJson(text)).toThrow(SyntaxError);
    }
  });
});

describe('what the rest of the proxy reads of them', () => {
  test('for an in-process server, exact numbers become the doubles a JavaScript server would have read', () => {
    const doc = parseJson('{"a":[12345678901234567890123,{"b":1e400,"c":-0}],"d":"x","e":1,"__proto__":{"f":1e-400}}');
    const read = numbersAsDoubles(doc) as Record<string, unknown>;
    expect(JSON.stringify(read)).toBe(
      '{"a":[1.2345678901234568e+22,{"b":null,"c":0}],"d":"x","e":1,"__proto__":{"f":0}}',
    );
    expect(Object.is((read.a as [unknown, { c: number }])[1].c, -0)).toBe(true);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.keys(read)).toEqual(['a', 'd', 'e', '__proto__']);
    // The parsed value itself is not changed.
    expect(JSON.stringify(doc)).toBe(
      '{"a":[12345678901234567890123,{"b":1e400,"c":-0}],"d":"x","e":1,"__proto__":{"f":1e-400}}',
    );
    const plain = { a: [1, 'x'], b: { c: 2 } };
    expect(numbersAsDoubles(plain)).toBe(plain);
    expect(numbersAsDoubles(parseJson('9007199254740993'))).toBe(9007199254740992);
  });

  test('textOf: an exact number as its text, an object without a prototype as [object], anything else as String', () => {
    expect(textOf(parseJson('1e400'))).toBe('1e400');
    expect(textOf(Object.create(null))).toBe('[object]');
    expect(textOf(42)).toBe('42');
    expect(textOf('x')).toBe('x');
    expect(textOf(undefined)).toBe('undefined');
  });

  test('stringifyJson writes exact numbers as they came, and never answers undefined', () => {
    const doc = parseJson('{"id":12345678901234567890123,"list":[-0,1e-400]}');
    expect(stringifyJson(doc)).toBe('{"id":12345678901234567890123,"list":[-0,1e-400]}');
    expect(stringifyJson(doc, 2)).toBe('{\n  "id": 12345678901234567890123,\n  "list": [\n    -0,\n    1e-400\n  ]\n}');
    expect(stringifyJson(undefined)).toBe('undefined');
    expect(stringifyJson(() => 1)).toBe('() => 1');
  });
});

describe('properties', () => {
  test('a JSON value written by JSON.stringify, read and written again, is the same text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(JSON.stringify(parseJson(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  const digits = (min: number, max: number) =>
    fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
  /** Any JSON number text: short and long mantissas, leading zeros after the dot, exponents small and huge. */
  const numberText = fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.oneof(
        fc.constant('0'),
        fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 30)).map(([a, b]) => `${a}${b}`),
      ),
      fc.option(digits(1, 30)),
      fc.option(
        fc.tuple(
          fc.constantFrom('e', 'E'),
          fc.constantFrom('', '+', '-'),
          fc.oneof(
            fc.integer({ min: 0, max: 30 }),
            fc.integer({ min: 290, max: 330 }),
            fc.integer({ min: 0, max: 9999 }),
          ),
        ),
      ),
    )
    .map(
      ([sign, whole, fraction, exponent]) =>
        `${sign}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : exponent.join('')}`,
    );

  test('any number text comes back with its decimal value, alone and among other members', () => {
    fc.assert(
      fc.property(numberText, fc.string({ maxLength: 20 }), (token, text) => {
        const written = roundTrip(`{"s":${JSON.stringify(text)},"n":${token},"a":[${token}]}`);
        const tokens = numberTokens(written);
        expect(tokens).toHaveLength(2);
        for (const out of tokens) expect(decimalValue(out)).toBe(decimalValue(token));
        expect((JSON.parse(written) as { s: string }).s).toBe(text);
        expect(decimalValue(roundTrip(token))).toBe(decimalValue(token));
      }),
      { numRuns: 2000 },
    );
  });

  test('an exact number is kept only when the double would change it; the doubles are what JSON.parse reads', () => {
    fc.assert(
      fc.property(numberText, (token) => {
        const read = parseJson(token);
        const double = JSON.parse(token) as number;
        const doubleKeeps = Number.isFinite(double) && decimalValue(JSON.stringify(double)) === decimalValue(token);
        expect(isExactNumber(read)).toBe(!doubleKeeps || Object.is(double, -0));
        expect(Object.is(numbersAsDoubles(read), double)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
