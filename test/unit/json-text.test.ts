import fc from 'fast-check';
import {
  confirmJsonText,
  findLongLiterals,
  literalRange,
  markLiteralChecked,
  parseJsonText,
  parseJsonTextUnconfirmed,
  type JsonPath,
} from '../../src/pipeline/json-text.js';
import { valueAt, walkJson } from '../../src/pipeline/json-docs.js';
import { noise } from './detect-fixtures.js';

/** A low threshold, so short generated strings take the long-literal path. */
const LONG = 16;

/** Every string value of a document that parseJsonText left in the text, with its path. */
function leftInText(doc: unknown): { path: JsonPath; value: string }[] {
  const found: { path: JsonPath; value: string }[] = [];
  walkJson(doc, (node, place) => {
    if (typeof node === 'string' && literalRange(doc, place.path())) found.push({ path: place.path(), value: node });
  });
  return found;
}

describe('parseJsonText with long literals left in the text', () => {
  const payload = noise(3000).toString('base64');
  const text = `{"name":"report","format":"pdf","content":"${payload}"}`;

  test('gives the document JSON.parse gives, and where the long value stands', () => {
    const doc = parseJsonText(text, LONG);
    expect(doc).toEqual(JSON.parse(text));
    const range = literalRange(doc, ['content'])!;
    expect(text.slice(range.start, range.end)).toBe(`"${payload}"`);
    expect(literalRange(doc, ['name'])).toBeUndefined(); // short: parsed the ordinary way
  });

  test('leaves keys, values with escapes and short values to the parser', () => {
    const longKey = 'k'.repeat(40);
    const withEscape = `${'a'.repeat(40)}\\n${'b'.repeat(40)}`;
    const source = `{"${longKey}": 1, "escaped": "${withEscape}", "plain" : "${'c'.repeat(40)}" }`;
    const doc = parseJsonText(source, LONG) as Record<string, unknown>;
    expect(doc).toEqual(JSON.parse(source));
    expect(leftInText(doc).map(({ path }) => path)).toEqual([['plain']]);
    expect(findLongLiterals(source, LONG)!.map(({ start, end }) => source.slice(start, end))).toEqual([
      `"${'c'.repeat(40)}"`,
    ]);
  });

  test('a string inside a string is part of its literal: escaped JSON that merely looks like base64 stays as it is', () => {
    const inner = JSON.stringify({ content: payload });
    const source = JSON.stringify({ wrapped: inner, list: [payload, { deeper: [payload] }] });
    const doc = parseJsonText(source, LONG);
    expect(doc).toEqual(JSON.parse(source));
    expect(leftInText(doc).map(({ path }) => path)).toEqual([
      ['list', 0],
      ['list', 1, 'deeper', 0],
    ]);
  });

  test('a repeated key keeps the last value, as JSON.parse does', () => {
    const source = `{"a":"${'x'.repeat(40)}","a":"${'y'.repeat(40)}"}`;
    const doc = parseJsonText(source, LONG);
    expect(doc).toEqual({ a: 'y'.repeat(40) });
    const range = literalRange(doc, ['a'])!;
    expect(source.slice(range.start + 1, range.end - 1)).toBe('y'.repeat(40));
  });

  test('a __proto__ key stays an ordinary key', () => {
    const source = `{"__proto__":"${'p'.repeat(40)}"}`;
    const doc = parseJsonText(source, LONG) as Record<string, unknown>;
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.keys(doc)).toEqual(['__proto__']);
    expect(doc).toEqual(JSON.parse(source));
  });

  test('a string of the upstream that looks like our placeholder is only a string', () => {
    const source = `{"x":"\\u0000mcp-offload-literal-0:0","y":"${'y'.repeat(40)}"}`;
    expect(parseJsonText(source, LONG)).toEqual(JSON.parse(source));
  });

  test('not JSON stays not JSON: unclosed literal, trailing garbage, a raw control character in a long literal', () => {
    for (const bad of [
      `{"a":"${'x'.repeat(40)}`,
      `{"a":"${'x'.repeat(40)}"} x`,
      `{"a":"${'x'.repeat(20)}\n${'x'.repeat(20)}"}`,
      `["${'x'.repeat(40)}"`,
    ]) {
      expect(() => JSON.parse(bad)).toThrow();
      expect(parseJsonText(bad, LONG)).toBeUndefined();
    }
  });

  test('the control-character check can wait, and a literal known to be clean is not checked again', () => {
    const bad = `{"a":"${'x'.repeat(20)}\t${'x'.repeat(20)}","b":"${'y'.repeat(40)}"}`;
    const doc = parseJsonTextUnconfirmed(bad, LONG);
    expect(doc).toBeDefined();
    expect(confirmJsonText(doc)).toBe(false);

    const good = `{"a":"${'x'.repeat(40)}"}`;
    const fine = parseJsonTextUnconfirmed(good, LONG);
    markLiteralChecked(fine, ['a']);
    expect(confirmJsonText(fine)).toBe(true);
    // Marking a literal as checked that is not clean is the caller's error; the check then trusts it.
    const trusted = parseJsonTextUnconfirmed(bad, LONG);
    markLiteralChecked(trusted, ['a']);
    expect(confirmJsonText(trusted)).toBe(true);
  });

  test('texts that are not an object or array are not documents', () => {
    for (const text of ['"just a string"', '42', 'plain words', '']) expect(parseJsonText(text, LONG)).toBeUndefined();
  });
});

describe('parseJsonText properties', () => {
  /** Strings of every kind: unicode, characters JSON must escape, and long base64-looking runs. */
  const anyString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({
      unit: fc.constantFrom(
        'A',
        'Z',
        'a',
        '0',
        '+',
        '/',
        '=',
        '"',
        '\\',
        '\n',
        '\u0001',
        'é',
        '\u2028',
        '\ud83d\ude00',
        '\ud800',
      ),
      maxLength: 60,
    }),
    fc.base64String({ minLength: LONG, maxLength: 120 }),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      anyString,
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('node'), { maxLength: 5 }),
      fc.dictionary(anyString, tie('node'), { maxKeys: 5 }),
    ),
  })).node;
  const container = fc.oneof(fc.array(value, { maxLength: 5 }), fc.dictionary(anyString, value, { maxKeys: 5 }));
  const spacing = fc.constantFrom(undefined, 0, 2, '\t');

  test('the document is the one JSON.parse gives, and every range holds its value', () => {
    fc.assert(
      fc.property(container, spacing, (doc, space) => {
        const text = JSON.stringify(doc, null, space);
        const parsed = parseJsonText(text, LONG);
        expect(parsed).toEqual(JSON.parse(text));
        for (const { path, value: string } of leftInText(parsed)) {
          const { start, end } = literalRange(parsed, path)!;
          expect(JSON.parse(text.slice(start, end))).toBe(string);
          expect(valueAt(parsed, path)).toBe(string);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('a text cut anywhere is no document, like JSON.parse says', () => {
    fc.assert(
      fc.property(container, fc.double({ min: 0, max: 1, noNaN: true }), (doc, where) => {
        const text = JSON.stringify(doc);
        const cut = text.slice(0, Math.floor(text.length * where));
        let expected: unknown;
        try {
          const plain = JSON.parse(cut);
          expected = typeof plain === 'object' && plain !== null ? plain : undefined;
        } catch {
          expected = undefined;
        }
        expect(parseJsonText(cut, LONG)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
