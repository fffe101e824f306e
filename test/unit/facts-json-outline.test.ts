import { describeJsonValue, jsonOutline } from '../../src/pipeline/facts/index.js';

describe('describeJsonValue', () => {
  test.each([
    ['hello', 'string(5 chars)'],
    [[1, 2, 3], 'array(3)'],
    [{ a: 1, b: 2 }, 'object(2 keys)'],
    [1.5, 'number'],
    [false, 'boolean'],
    [null, 'null'],
  ])('%j → %s', (value, description) => {
    expect(describeJsonValue(value)).toBe(description);
  });
});

describe('jsonOutline', () => {
  test('an object with more than 20 keys lists the first 20 and how many more', () => {
    const doc = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i]));
    const outline = jsonOutline(doc);
    expect(Object.keys(outline.keys as object)).toHaveLength(20);
    expect(outline.more).toBe('+5 more');
  });

  test('an array of objects: length, first element and its keys', () => {
    const rows = Array.from({ length: 340 }, (_, i) => ({ id: i, name: `n${i}`, tags: [] }));
    expect(jsonOutline(rows)).toEqual({
      type: 'array',
      length: 340,
      first: 'object(3 keys)',
      firstKeys: ['id', 'name', 'tags'],
    });
  });

  test('an array whose first element has many keys', () => {
    const first = Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`k${i}`, i]));
    expect((jsonOutline([first]).firstKeys as string[]).slice(-2)).toEqual(['k19', '+2 more']);
  });

  test('empty containers and scalars', () => {
    expect(jsonOutline([])).toEqual({ type: 'array', length: 0 });
    expect(jsonOutline({})).toEqual({ type: 'object', keys: {} });
    expect(jsonOutline('x')).toEqual({ type: 'string(1 char)' });
    expect(jsonOutline(null)).toEqual({ type: 'null' });
  });

  test('a __proto__ key is listed as a key', () => {
    const outline = jsonOutline(JSON.parse('{"__proto__": [1, 2]}'));
    expect(Object.getOwnPropertyDescriptor(outline.keys, '__proto__')?.value).toBe('array(2)');
  });
});
