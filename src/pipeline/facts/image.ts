import { createRequire } from 'node:module';

// Loaded with the first image, and kept: an idle proxy, and results without images, need none of its readers.
type ImageSize = typeof import('image-size');
let imageSizeModule: ImageSize | undefined;
const imageSize = (bytes: Uint8Array) =>
  (imageSizeModule ??= createRequire(import.meta.url)('image-size') as ImageSize).imageSize(bytes);

/**
 * `{ width, height }` of an image, or `{}` when image-size cannot read it (unknown format, truncated) or
 * reads a zero size (its TGA reader accepts almost any bytes, zeros included).
 */
export function imageFacts(bytes: Uint8Array): { width?: number; height?: number } {
  const size = sizeOf(bytes);
  return size ? { width: size.width, height: size.height } : {};
}

function sizeOf(bytes: Uint8Array): { width: number; height: number; type?: string } | undefined {
  try {
    const { width, height, type } = imageSize(bytes);
    return typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0
      ? { width, height, type }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Formats image-size recognizes by their first byte alone among fixed-byte signatures, and sizes from a
 * fixed header (or, for JPEG, from markers walked in order from the start): for these a size read from
 * the head of a file is the size read from all of it, provided the head does not end exactly where a
 * JPEG segment does (the walk would then go on inside the segment, where the whole file has a marker;
 * reading one byte less fails then, so both must agree). Others (TIFF's tag scan, boxes that must fit,
 * icons) may read differently from a part, so they get the whole file.
 */
const HEAD_IS_ENOUGH: Record<string, number> = {
  png: 0x89,
  gif: 0x47,
  bmp: 0x42,
  webp: 0x52,
  psd: 0x38,
  dds: 0x44,
  ktx: 0xab,
  j2c: 0xff,
  jpg: 0xff,
};

/**
 * `imageFacts` of a file of `size` bytes known by its `head`, the same answer as for all its bytes:
 * those are read (`readAll`) only when the head does not settle it.
 */
export async function imageFactsOfFile(
  head: Uint8Array,
  size: number,
  readAll: () => Promise<Uint8Array>,
): Promise<{ width?: number; height?: number }> {
  if (head.length >= size) return imageFacts(head);
  const fromHead = sizeOf(head);
  const shorter = fromHead && sizeOf(head.subarray(0, head.length - 1));
  if (
    fromHead?.type !== undefined &&
    HEAD_IS_ENOUGH[fromHead.type] === head[0] &&
    shorter?.width === fromHead.width &&
    shorter.height === fromHead.height
  ) {
    return { width: fromHead.width, height: fromHead.height };
  }
  return imageFacts(await readAll());
}
