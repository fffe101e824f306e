import { findStringsDeep, setAtPath, SKIP, STOP, walkJson, type JsonPath } from '../../src/pipeline/detect/walk.js';

function collect(value: unknown): Array<[string, JsonPath]> {
  const seen: Array<[string, JsonPath]> = [];
  findStringsDeep(value, (s, place) => {
    seen.push([s, place.path()]);
    return true;
  });
  return seen;
}

describe('findStringsDeep', () => {
  test('visits every string value (not keys) in document order, with its path', () => {
    const value = { a: 'x', b: [1, 'y', { c: 'z', d: null }], e: { f: ['w'] }, g: true };
    expect(collect(value)).toEqual([
      ['x', ['a']],
      ['y', ['b', 1]],
      ['z', ['b', 2, 'c']],
      ['w', ['e', 'f', 0]],
    ]);
  });

  test('a string at the top has the empty path; primitives have no strings', () => {
    expect(collect('top')).toEqual([['top', []]]);
    expect(collect(42)).toEqual([]);
    expect(collect(null)).toEqual([]);
    expect(collect(undefined)).toEqual([]);
  });

  test('stops when the visitor returns false, and says so', () => {
    const seen: string[] = [];
    const finished = findStringsDeep(['a', 'b', 'c'], (s) => {
      seen.push(s);
      return s !== 'b';
    });
    expect(finished).toBe(false);
    expect(seen).toEqual(['a', 'b']);
    expect(findStringsDeep(['a'], () => true)).toBe(true);
  });

  test('walks a 100 000-level chain without overflowing the stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = { next: deep };
    const seen = collect(deep);
    expect(seen).toHaveLength(1);
    expect(seen[0][0]).toBe('bottom');
    expect(seen[0][1]).toHaveLength(100_000);
  });

  test('a shared object is visited at each place it appears; a cycle is not followed', () => {
    const shared = { s: 'shared' };
    expect(collect({ a: shared, b: shared }).map(([, p]) => p)).toEqual([
      ['a', 's'],
      ['b', 's'],
    ]);
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(collect(cyclic)).toEqual([['loop', ['name']]]);
  });
});

describe('setAtPath', () => {
  test('returns a new root with the value replaced, copying only along the path', () => {
    const untouched = { big: 'x'.repeat(10) };
    const root = { a: { b: [1, { c: 'old' }] }, other: untouched };
    const snapshot = JSON.stringify(root);
    const next = setAtPath(root, ['a', 'b', 1, 'c'], 'new');
    expect(next).toEqual({ a: { b: [1, { c: 'new' }] }, other: untouched });
    expect(JSON.stringify(root)).toBe(snapshot);
    expect(next).not.toBe(root);
    expect(next.a).not.toBe(root.a);
    expect(next.a.b).not.toBe(root.a.b);
    expect(next.other).toBe(untouched);
  });

  test('an empty path replaces the root', () => {
    expect(setAtPath({ a: 1 }, [], 'x')).toBe('x');
  });

  test('replaces with any value, including objects and undefined', () => {
    expect(setAtPath({ a: 'x' }, ['a'], { uri: 'artifact://a' })).toEqual({ a: { uri: 'artifact://a' } });
    expect(setAtPath(['x', 'y'], [1], undefined)).toEqual(['x', undefined]);
  });

  test('a __proto__ key is set as a plain key, not as the prototype', () => {
    const root = JSON.parse('{"__proto__": {"x": "old"}}') as Record<string, unknown>;
    const next = setAtPath(root, ['__proto__', 'x'], 'new') as Record<string, unknown>;
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(next, '__proto__')?.value).toEqual({ x: 'new' });
  });

  test('throws a RangeError for a path that is not in the value', () => {
    expect(() => setAtPath({ a: 1 }, ['b'], 0)).toThrow(RangeError);
    expect(() => setAtPath({ a: 1 }, ['a', 'b'], 0)).toThrow(RangeError);
    expect(() => setAtPath([1], [1], 0)).toThrow(RangeError);
    expect(() => setAtPath({ a: 1 }, ['toString'], 0)).toThrow(RangeError);
  });
});

describe('walkJson', () => {
  test('containers before their children, in document order; SKIP leaves children out, STOP ends the walk', () => {
    const value = { a: [1, { b: 2 }], c: { d: 3 } };
    const seen: string[] = [];
    const finished = walkJson(value, (node, place) => {
      seen.push(JSON.stringify(place.path()));
      if (place.key === 'c') return SKIP;
      return node === 2 ? STOP : undefined;
    });
    expect(finished).toBe(false);
    expect(seen).toEqual(['[]', '["a"]', '["a",0]', '["a",1]', '["a",1,"b"]']);
    expect(walkJson(value, () => SKIP)).toBe(true);
  });

  test('a 100 000-level chain is walked without its paths: a path is made only when asked for', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = { a: [deep] };
    let nodes = 0;
    let bottom: JsonPath = [];
    walkJson(deep, (node, place) => {
      nodes++;
      if (Array.isArray(node) && node.length === 0) bottom = place.path();
    });
    expect(nodes).toBe(200_001);
    expect(bottom).toHaveLength(200_000);
    expect(bottom.slice(0, 4)).toEqual(['a', 0, 'a', 0]);
  });
});
