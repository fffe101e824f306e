// Which part of an image a preview shows (pipeline/image-part.ts): a screenful of a page too long to read scaled
// whole, the whole of anything else, thin strips included.
import { readablePart } from '../../src/pipeline/image-part.js';

const EDGE = 1568;

test('a full-page screenshot shows its first screenful at full width', () => {
  expect(readablePart(1280, 20000, EDGE)).toEqual({
    region: { left: 0, top: 0, width: 1280, height: 1600 },
    shown: { side: 'top', pixels: 1600, of: 20000, screens: 13 },
  });
  expect(readablePart(1280, 4269, EDGE)?.shown.side).toBe('top');
  expect(readablePart(390, 20000, EDGE)?.region).toEqual({ left: 0, top: 0, width: 390, height: 488 });
  expect(readablePart(20000, 1280, EDGE)?.shown).toEqual({ side: 'left', pixels: 1600, of: 20000, screens: 13 });
});

test('a strip thin in its own right is shown whole: a piece of it would show less', () => {
  expect(readablePart(1600, 4, EDGE)).toBeUndefined();
  expect(readablePart(2000, 64, EDGE)).toBeUndefined();
});

test('an image that reads well scaled whole is shown whole', () => {
  expect(readablePart(3000, 1400, EDGE)).toBeUndefined();
  expect(readablePart(1568, 1568, EDGE)).toBeUndefined();
  expect(readablePart(1000, 1900, EDGE)).toBeUndefined();
  expect(readablePart(undefined, 100, EDGE)).toBeUndefined();
});
