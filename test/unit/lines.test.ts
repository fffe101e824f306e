import { countLines, splitLines } from '../../src/artifacts/lines.js';

test.each([
  ['', 0],
  ['one', 1],
  ['one\n', 1],
  ['one\ntwo', 2],
  ['one\ntwo\n', 2],
  ['one\r\ntwo\r\n', 2],
  ['\n', 1],
  ['\n\n', 2],
  ['a\n\nb', 3],
])('%j has %i lines, counted from its bytes or its text and split from its text alike', (text, lines) => {
  expect(countLines(Buffer.from(text))).toBe(lines);
  expect(countLines(text)).toBe(lines);
  expect(splitLines(text)).toHaveLength(lines);
});

test('lines come without their line ends', () => {
  expect(splitLines('a\r\nb\nc')).toEqual(['a', 'b', 'c']);
  expect(splitLines('400 lines\n'.repeat(400))).toHaveLength(400);
});
