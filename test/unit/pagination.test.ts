import { page } from '../../src/relay/pagination.js';

test('pages through a list with opaque cursors', () => {
  const items = [1, 2, 3, 4, 5];
  const first = page(items, undefined, 2);
  expect(first.items).toEqual([1, 2]);
  const second = page(items, first.nextCursor, 2);
  expect(second.items).toEqual([3, 4]);
  const third = page(items, second.nextCursor, 2);
  expect(third).toEqual({ items: [5] });
});

test('a list that fits one page has no cursor', () => {
  expect(page([1], undefined, 100)).toEqual({ items: [1] });
});

test('a forged cursor is an invalid-params error', () => {
  expect(() => page([1], 'bogus', 2)).toThrow(/invalid cursor/);
  expect(() => page([1], 42, 2)).toThrow(/invalid cursor/);
});
