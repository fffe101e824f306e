// Values nested deeper than V8 recurses: JSON.parse reads them, so the proxy must write, measure and map them too.
// jsonText writes what JSON.stringify writes, and the same at any depth; mapLeaves maps leaves without recursion.
import { describe, expect, test } from '@jest/globals';
import { deepJsonText, isExactNumber, jsonText, numbersAsDoubles, parseJson } from '../../src/wire/json.js';
import { mapLeaves } from '../../src/wire/map-leaves.js';

const nested = (depth: number, leaf = '1') => `${'{"a":['.repeat(depth / 2)}${leaf}${']}'.repeat(depth / 2)}`;

/** The value of nested(depth, leaf) with its leaf kept exact (JSON.rawJSON), built without parsing. */
function exactNested(depth: number, leaf: string): unknown {
  let value: unknown = JSON.rawJSON(leaf);
  for (let i = 0; i < depth / 2; i++) value = { a: [value] };
  return value;
}

describe('jsonText', () => {
  const values: unknown[] = [
    null,
    true,
    0,
    -0,
    1.5,
    1e21,
    NaN,
    Infinity,
    -Infinity,
    1e-7,
    5e-324,
    -123.456e-30,
    Number.MAX_VALUE,
    2 ** 53 + 2,
    'plain',
    'quote " backslash \\ newline \n tab \t nul \u0000 lone surrogate \ud800 emoji 😀',
    [],
    {},
    [1, 'two', null, [3, [4, {}]], { five: 5 }],
    [undefined, () => 1, Symbol('s')],
    { kept: 1, gone: undefined, fn: () => 1, sym: Symbol('s'), nested: { deeper: [{}] } },
    { __proto__: null, plain: 'no prototype' },
    JSON.parse('{"__proto__": {"own": true}, "a": 1}'),
    { date: new Date(0), boxed: [Object(1), Object('s'), Object(false)] },
    { toJSON: (key: string) => ({ asked: key }) },
    parseJson('{"big": 12345678901234567890, "exact": [1e400, -0]}'),
  ];

  test.each(values.map((value, i) => [i, value]))('writes value %i as JSON.stringify does', (_, value) => {
    expect(jsonText(value)).toBe(JSON.stringify(value));
    // The deep way too, on values JSON.stringify can still write.
    expect(deepJsonText(value)).toBe(JSON.stringify(value));
  });

  test('undefined for what JSON.stringify writes nothing for', () => {
    expect(deepJsonText(undefined)).toBeUndefined();
    expect(deepJsonText(() => 1)).toBeUndefined();
  });

  test('writes a value 100 000 levels deep, its exact number as it was', () => {
    const value = exactNested(100_000, '12345678901234567890');
    expect(() => JSON.stringify(value)).toThrow(/call stack/);
    expect(jsonText(value)).toBe(nested(100_000, '12345678901234567890'));
  });

  test('a cycle is still an error, as with JSON.stringify', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonText(cycle)).toThrow(TypeError);
    expect(() => deepJsonText(cycle)).toThrow(/circular/);
  });
});

describe('parseJson, deep', () => {
  test('a text with a number no double holds, too deep for a reviver, is read with doubles', () => {
    const text = nested(100_000, '12345678901234567890');
    expect(() => JSON.parse(text, (_key, value: unknown) => value)).toThrow(/call stack/);
    let at = parseJson(text);
    let depth = 0;
    while (typeof at === 'object' && at !== null) {
      depth++;
      at = Array.isArray(at) ? at[0] : (at as { a: unknown }).a;
    }
    expect([depth, at]).toEqual([100_000, Number('12345678901234567890')]);
  });

  test('a shallow one still keeps the number exact', () => {
    const value = parseJson('{"n": 12345678901234567890}') as { n: unknown };
    expect(isExactNumber(value.n)).toBe(true);
  });
});

describe('mapLeaves', () => {
  test('the very same value when no leaf changes', () => {
    const value = JSON.parse('{"a": [1, "x", {"b": null}], "c": true}');
    expect(mapLeaves(value, (leaf) => leaf)).toBe(value);
  });

  test('copies only the containers on the way to a changed leaf, and never changes the original', () => {
    const value = JSON.parse('{"left": {"deep": ["x", "y"]}, "right": {"untouched": [1, 2]}}');
    const before = JSON.stringify(value);
    const mapped = mapLeaves(value, (leaf) => (leaf === 'y' ? 'Y' : leaf)) as typeof value;
    expect(mapped).toEqual({ left: { deep: ['x', 'Y'] }, right: { untouched: [1, 2] } });
    expect(mapped).not.toBe(value);
    expect(mapped.left).not.toBe(value.left);
    expect(mapped.right).toBe(value.right);
    expect(JSON.stringify(value)).toBe(before);
  });

  test('a member named __proto__ stays a member', () => {
    const value = JSON.parse('{"__proto__": {"x": "old"}}');
    const mapped = mapLeaves(value, (leaf) => (leaf === 'old' ? 'new' : leaf)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(mapped)).toBe(Object.prototype);
    expect(JSON.stringify(mapped)).toBe('{"__proto__":{"x":"new"}}');
  });

  test('maps a value 100 000 levels deep', () => {
    const value = exactNested(100_000, '12345678901234567890');
    const doubles = numbersAsDoubles(value);
    expect(doubles).not.toBe(value);
    expect(jsonText(doubles)).toBe(nested(100_000, '12345678901234567000'));
  });

  test('an exact number is a leaf; a leaf at the root is mapped', () => {
    const exact = parseJson('12345678901234567890');
    expect(mapLeaves(exact, (leaf) => (isExactNumber(leaf) ? 'exact' : leaf))).toBe('exact');
  });
});
