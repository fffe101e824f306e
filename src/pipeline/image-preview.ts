/**
 * Images for vision models: whether one can pass as it came, and else a copy scaled down to fit, read
 * from the stored file (sharp, libvips: it decodes large images in tiles, not whole in memory). Loaded on
 * first use: most results hold no image.
 */
import { decodeBase64Strict } from '../codec/base64.js';
import type { BlobView } from '../wire/blob-view.js';
import { base64DecodedSize } from './payload-data.js';
import { imageFacts } from './facts/image.js';
import type { InlineKeep } from './settings.js';

type Sharp = typeof import('sharp');
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

export interface ImagePreview {
  data: string;
  mimeType: string;
  width: number;
  height: number;
}

/**
 * The stored image scaled down to fit the limits: PNG when it has transparency or is a PNG (screenshots,
 * diagrams: text stays sharp), else JPEG; smaller until it fits the byte limit. Undefined when nothing may
 * be shown (limits of 0) or sharp cannot read it (SVG or a format libvips lacks, a damaged file).
 */
export async function imagePreview(path: string | Buffer, keep: InlineKeep): Promise<ImagePreview | undefined> {
  if (keep.imageMaxBytes <= 0 || keep.imageMaxEdge <= 0) return undefined;
  try {
    // From the stored file, read from start to end as libvips streams it (sharp's default, sequentialRead), and with
    // sharp's own limit on the pixels it decodes (limitInputPixels).
    const sharp = await loadSharp();
    const meta = await sharp(path).metadata();
    const lossless = meta.format === 'png' || meta.hasAlpha === true;
    let edge = keep.imageMaxEdge;
    for (let attempt = 0; attempt < 6; attempt++) {
      const scaled = sharp(path)
        .rotate()
        .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true });
      const encoded =
        lossless && attempt < 2
          ? scaled.png({ compressionLevel: 9 })
          : scaled.flatten({ background: '#ffffff' }).jpeg({ quality: 82 });
      const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
      if (data.length <= keep.imageMaxBytes) {
        return {
          data: data.toString('base64'),
          mimeType: `image/${info.format === 'png' ? 'png' : 'jpeg'}`,
          width: info.width,
          height: info.height,
        };
      }
      edge = Math.max(64, Math.floor(edge * 0.75));
    }
    return undefined;
  } catch {
    return undefined;
  }
}
