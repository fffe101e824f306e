/**
 * Images for vision models: whether one can pass as it came, and else a preview read from the stored file
 * (sharp, libvips: it decodes large images in tiles, not whole in memory). Loaded on first use: most results
 * hold no image.
 */
import { decodeBase64Strict } from '../codec/base64.js';
import type { BlobView } from '../wire/blob-view.js';
import { base64DecodedSize } from './payload-data.js';
import { imageFacts } from './facts/image.js';
import { markPreview } from './preview-mark.js';
import { PALETTE_COLORS, pixelTraits, type PixelTraits } from './image-traits.js';
import { readablePart, type ImagePart } from './image-part.js';
import type { InlineKeep } from './settings.js';

type Sharp = typeof import('sharp');
type SharpImage = import('sharp').Sharp;
let loading: Promise<Sharp['default']> | undefined;

/**
 * sharp, loaded once. Its cache is off: it keeps recent images decoded (up to 50 MB), and a proxy previews each image
 * once, so it would only hold memory.
 */
function loadSharp(): Promise<Sharp['default']> {
  return (loading ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  }));
}

/** Base64 characters whose bytes hold any common format's dimensions. */
const HEAD_CHARS = 64 * 1024;

/** Whether an image (base64, or the bytes kept for it) fits the limits; dimensions from its first bytes. */
export function fitsVision(base64: string | BlobView, keep: InlineKeep): boolean {
  if (keep.imageMaxBytes <= 0 || base64DecodedSize(base64) > keep.imageMaxBytes) return false;
  const head = typeof base64 === 'string' ? base64.slice(0, HEAD_CHARS) : base64.head(HEAD_CHARS);
  const bytes = decodeBase64Strict(head.slice(0, head.length - (head.length % 4)));
  const { width, height } = bytes ? imageFacts(bytes) : {};
  // Dimensions it cannot read: the size decides, as a model's API would take or refuse the image.
  return width === undefined || height === undefined || Math.max(width, height) <= keep.imageMaxEdge;
}

export interface PreviewLimits {
  /** Pixels on the long edge. */
  maxEdge: number;
  /** Bytes of the preview's base64, as it lands in the result. */
  maxBase64: number;
  /**
   * The artifact the preview stands for: its bytes then carry the mark that tells it apart when a call brings it
   * back (preview-mark.ts). Within maxBase64.
   */
  of?: string;
}

export interface ImagePreview {
  data: string;
  mimeType: string;
  width: number;
  height: number;
  /** Set when only a part is shown: the image is too long to be read whole (image-part.ts). */
  part?: ImagePart;
}

/** The smallest long edge worth shrinking to: below it a preview shows nothing a model can read. */
const MIN_EDGE = 64;

/** At most this many smaller sizes are tried after the first. */
const MAX_SHRINKS = 6;

/**
 * The stored image as a preview within the limits: the whole image, or the first screenful of one too long
 * to read whole, scaled down to the edge limit; gray stays gray; PNG for flat images (screenshots, diagrams:
 * text stays sharp), JPEG for photographic ones; smaller in quality, then in size, until its base64 fits.
 * Undefined when nothing may be shown (limits of 0, a budget too small for any preview) or sharp cannot
 * read it (SVG or a format libvips lacks, a damaged file).
 */
export async function imagePreview(path: string | Buffer, limits: PreviewLimits): Promise<ImagePreview | undefined> {
  if (limits.maxBase64 <= 0 || limits.maxEdge <= 0) return undefined;
  try {
    // From the stored file, read from start to end as libvips streams it (sharp's default, sequentialRead), and with
    // sharp's own limit on the pixels it decodes (limitInputPixels).
    const sharp = await loadSharp();
    const meta = await sharp(path).metadata();
    const { width, height } = meta.autoOrient ?? meta;
    const part = readablePart(width, height, limits.maxEdge);
    let image = sharp(path).autoOrient();
    if (part) image = image.extract(part.region);
    // Decoded once, at the largest size the preview may have; smaller tries start from these pixels.
    const { data: raw, info } = await image
      .resize({ width: limits.maxEdge, height: limits.maxEdge, fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const traits = pixelTraits(raw, info.channels);
    const from = () => sharp(raw, { raw: { width: info.width, height: info.height, channels: info.channels } });
    const maxBytes = Math.floor(limits.maxBase64 / 4) * 3;
    let edge = Math.max(info.width, info.height);
    for (let shrink = 0; shrink <= MAX_SHRINKS && (shrink === 0 || edge >= MIN_EDGE); shrink++) {
      const full = shrink === 0;
      let smallest: number | undefined;
      // At full size every encoding is tried, best first; smaller, only the most compact.
      for (const encode of full ? encodings(traits) : encodings(traits).slice(-1)) {
        const scaled = full ? from() : from().resize({ width: edge, height: edge, fit: 'inside' });
        const encoding = encode(prepared(scaled, traits));
        const { data: encoded, info: out } = await encoding.toBuffer({ resolveWithObject: true });
        const data = limits.of === undefined ? encoded : markPreview(encoded, limits.of);
        if (data.length <= maxBytes) {
          return {
            data: data.toString('base64'),
            mimeType: `image/${out.format}`,
            width: out.width,
            height: out.height,
            ...(part ? { part: part.shown } : {}),
          };
        }
        smallest = Math.min(smallest ?? Infinity, data.length);
      }
      // Bytes go roughly with the pixels: the next edge aims a little under the budget.
      edge = Math.floor(edge * Math.min(0.8, Math.sqrt(maxBytes / smallest!) * 0.9));
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** Alpha only where a pixel uses it, one channel for a gray image. */
function prepared(image: SharpImage, traits: PixelTraits): SharpImage {
  const opaque = traits.transparent ? image : image.removeAlpha();
  return traits.gray ? opaque.toColorspace('b-w') : opaque;
}

type Encoding = (image: SharpImage) => SharpImage;

/**
 * How a preview is written, best first. Flat: PNG, exact (with a palette when its colors fit one), then, for
 * color beyond a palette, the closest 256 colors. Photographic: JPEG (every client and vision API reads it),
 * at two qualities; transparency on white, since JPEG has none. A flat image PNG cannot fit at full size goes
 * JPEG too, before any shrinking: text at full resolution with some blur reads better than sharp text halved.
 * Gray stays one channel throughout (a palette of grays would be indexed color).
 */
function encodings(traits: PixelTraits): Encoding[] {
  const jpeg = (quality: number) => (image: SharpImage) =>
    image.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true });
  const lossy = [jpeg(80), jpeg(60)];
  if (!traits.flat) return lossy;
  const palette = !traits.gray && traits.colors <= PALETTE_COLORS;
  const exact: Encoding = (image) =>
    image.png({
      compressionLevel: 9,
      ...(palette ? { palette: true, colors: Math.max(2, traits.colors), dither: 0 } : {}),
    });
  const closest: Encoding = (image) => image.png({ compressionLevel: 9, palette: true, quality: 90 });
  return [exact, ...(palette || traits.gray ? [] : [closest]), ...lossy];
}
