import { imageSize } from 'image-size';

/**
 * `{ width, height }` of an image, or `{}` when image-size cannot read it (unknown format, truncated) or
 * reads a zero size (its TGA reader accepts almost any bytes, zeros included).
 */
export function imageFacts(bytes: Buffer): { width?: number; height?: number } {
  try {
    const { width, height } = imageSize(bytes);
    return typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0 ? { width, height } : {};
  } catch {
    return {};
  }
}
