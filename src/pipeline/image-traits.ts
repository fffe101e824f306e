/**
 * What kind of picture a preview is, read from its raw pixels (at most the preview's size, so a scan is
 * cheap): whether it is gray, whether it has transparency, and whether it is flat (screenshots, diagrams,
 * charts: runs of one color, which PNG keeps sharp and small) or photographic (photos, scans, noise: every
 * pixel differs from its neighbor, which only a lossy format makes small).
 */

export interface PixelTraits {
  /** Every pixel has r = g = b (or the image has one color channel). */
  gray: boolean;
  /** Some pixel is not fully opaque. */
  transparent: boolean;
  /** At least FLAT_SHARE of the pixels repeat the color of the pixel to their left. */
  flat: boolean;
  /** Distinct colors, counted up to PALETTE_COLORS + 1: at most PALETTE_COLORS means a palette holds it exactly. */
  colors: number;
}

/**
 * A share of repeated pixels above which an image is flat. Page screenshots repeat most of their pixels
 * (backgrounds, margins: 60-95 %), photos and scans almost none (under 15 %); halfway is far from both.
 */
const FLAT_SHARE = 0.5;

/** The most colors a PNG palette holds. */
export const PALETTE_COLORS = 256;

/** `channels`: 1 (gray), 2 (gray and alpha), 3 (RGB) or 4 (RGBA), as sharp's raw output gives them. */
export function pixelTraits(raw: Buffer, channels: number): PixelTraits {
  const color = channels >= 3;
  const alpha = channels === 2 || channels === 4;
  const pixels = Math.floor(raw.length / channels);
  let gray = !color;
  if (color) {
    gray = true;
    for (let at = 0; at < raw.length; at += channels) {
      if (raw[at] !== raw[at + 1] || raw[at] !== raw[at + 2]) {
        gray = false;
        break;
      }
    }
  }
  let transparent = false;
  if (alpha) {
    for (let at = channels - 1; at < raw.length; at += channels) {
      if (raw[at] !== 255) {
        transparent = true;
        break;
      }
    }
  }
  let repeated = 0;
  const seen = new Set<number>();
  for (let pixel = 0, at = 0; pixel < pixels; pixel++, at += channels) {
    const value = pack(raw, at, channels);
    if (pixel > 0 && value === pack(raw, at - channels, channels)) repeated++;
    else if (seen.size <= PALETTE_COLORS) seen.add(value);
  }
  return { gray, transparent, flat: pixels > 0 && repeated / pixels >= FLAT_SHARE, colors: seen.size };
}

/** One pixel's channels as one number (4 bytes fit a double exactly). */
function pack(raw: Buffer, at: number, channels: number): number {
  let value = 0;
  for (let c = 0; c < channels; c++) value = value * 256 + raw[at + c]!;
  return value;
}
