/**
 * Which part of an image a preview shows. An image much longer than wide (a full-page screenshot: 1280x20000)
 * scaled whole to the edge limit would be a strip nobody can read (100x1568), so its preview is its first
 * screenful at full width, the top of the page, which says what the page is; the file holds the whole image.
 * The same for an image much wider than tall, from its left.
 */

export interface ImagePart {
  /** Which end the part is taken from. */
  side: 'top' | 'left';
  /** Pixels of the image along its long side that the part covers... */
  pixels: number;
  /** ...of this many. */
  of: number;
  /** How many parts of that length the image holds (the last may be shorter). */
  screens: number;
}

/** Past this ratio of the long side to the short one, the whole image scaled down may be too thin to read. */
const LONG_RATIO = 2;

/**
 * Scaled whole to the edge limit, a long image keeps its short side when that side is at least this many pixels or
 * loses less than a quarter of it (LOST_SHARE); otherwise the detail is gone (a 1280 px wide page at 470 px: text of
 * 16 px at 6; a 390 px phone page at 30), and a screenful of it is shown instead. A strip thin in its own right (a
 * 2000x64 banner, a 1600x4 rule) loses little scaled whole, and a piece of it would show less.
 */
const READABLE_SHORT_SIDE = 640;
const LOST_SHARE = 0.25;

/** A screenful: its long side is this many times its short one (1280 wide: 1600 tall, a laptop's page and a half). */
const SCREEN_RATIO = 1.25;

/** The region to show, and what part it is; undefined when the whole image reads well scaled down. */
export function readablePart(
  width: number | undefined,
  height: number | undefined,
  maxEdge: number,
): { region: { left: number; top: number; width: number; height: number }; shown: ImagePart } | undefined {
  if (!width || !height) return undefined;
  const tall = height > width * LONG_RATIO;
  if (!tall && width <= height * LONG_RATIO) return undefined;
  const across = tall ? width : height;
  const along = tall ? height : width;
  const scaledAcross = across * Math.min(1, maxEdge / along);
  if (scaledAcross >= Math.min(across, READABLE_SHORT_SIDE) * (1 - LOST_SHARE)) return undefined;
  const pixels = Math.min(along, Math.round(across * SCREEN_RATIO));
  return {
    region: { left: 0, top: 0, width: tall ? width : pixels, height: tall ? pixels : height },
    shown: { side: tall ? 'top' : 'left', pixels, of: along, screens: Math.ceil(along / pixels) },
  };
}
