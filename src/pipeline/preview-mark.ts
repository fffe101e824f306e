/**
 * The mark an image preview of the proxy's carries in its own bytes, so a preview carried back in a tool call (a
 * tool saving an image, given the base64 the proxy showed) is recognized from the bytes alone, in every session and
 * on every replica, with nothing to look up (handed-out.ts), and a downscaled preview never overwrites its original.
 *
 * It is a comment in the file's metadata, before the pixel data: a PNG `tEXt` chunk right after `IHDR`, a JPEG `COM`
 * segment right after `SOI` (and after the JFIF `APP0`, which must come first). Viewers ignore both. It costs a few
 * dozen bytes (the text plus 12 for PNG, 4 for JPEG), far less than EXIF (libvips writes about 250 bytes of it).
 * The text, `mcp-offload preview of artifact://…` ending in a line feed, is found by a search of the decoded head.
 */
import { decodeBase64Strict } from '../codec/base64.js';

const PREFIX = 'mcp-offload preview of ';
const MARK = new RegExp(`${PREFIX}(artifact://[!-~]{1,300})\\n`);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The mark's text for a preview of `uri`. */
function markText(uri: string): Buffer {
  return Buffer.from(`${PREFIX}${uri}\n`, 'latin1');
}

/** The preview's bytes with its mark; the bytes as they are when the format is neither PNG nor JPEG. */
export function markPreview(bytes: Buffer, uri: string): Buffer {
  const text = markText(uri);
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE) && bytes.toString('latin1', 12, 16) === 'IHDR') {
    // Signature (8), IHDR: length (4), type (4), 13 bytes of data, CRC (4).
    const afterIhdr = 8 + 12 + bytes.readUInt32BE(8);
    const data = Buffer.concat([Buffer.from('Comment\0', 'latin1'), text]);
    const chunk = Buffer.alloc(12 + data.length);
    chunk.writeUInt32BE(data.length, 0);
    chunk.write('tEXt', 4, 'latin1');
    data.copy(chunk, 8);
    chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
    return Buffer.concat([bytes.subarray(0, afterIhdr), chunk, bytes.subarray(afterIhdr)]);
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    // After SOI, and after an APP0 (JFIF) segment there: a JFIF file must begin with it.
    let at = 2;
    if (bytes[2] === 0xff && bytes[3] === 0xe0) at = 4 + bytes.readUInt16BE(4);
    const segment = Buffer.alloc(4 + text.length);
    segment[0] = 0xff;
    segment[1] = 0xfe;
    segment.writeUInt16BE(2 + text.length, 2);
    text.copy(segment, 4);
    return Buffer.concat([bytes.subarray(0, at), segment, bytes.subarray(at)]);
  }
  return bytes;
}

/** Shorter strings are not images worth a look: a preview is kilobytes. */
export const MIN_CHARS = 1024;
/** Base64 characters of the head searched: 64 KiB of bytes, well past the metadata that precedes the pixels. */
const HEAD_CHARS = 21846 * 4;
const DATA_URI = /^data:image\/[\w.+-]{1,40}(?:;[\w=.+-]{1,80}){0,4};base64,/;

/**
 * The artifact an image preview of the proxy's stands for, when `text` is one: base64 (or a `data:` URI) of a PNG,
 * JPEG or WebP file whose head holds the mark. Cheap for any string: its length, then the first bytes' signature,
 * then a bounded head decoded and searched; no image is decoded.
 */
export function previewMarkIn(text: string): string | undefined {
  if (text.length < MIN_CHARS) return undefined;
  const start = DATA_URI.exec(text.slice(0, 200))?.[0].length ?? 0;
  const first = decodeBase64Strict(text.slice(start, start + 16));
  if (!first || !imageSignature(first)) return undefined;
  let head = text.slice(start, start + HEAD_CHARS).replace(/[\r\n]/g, '');
  // A whole string may end in padding; a cut one is taken to a whole number of 4-character groups.
  if (start + HEAD_CHARS < text.length) head = head.slice(0, head.length - (head.length % 4));
  const bytes = decodeBase64Strict(head);
  return bytes ? MARK.exec(bytes.toString('latin1'))?.[1] : undefined;
}

function imageSignature(bytes: Buffer): boolean {
  return (
    bytes.subarray(0, 8).equals(PNG_SIGNATURE) ||
    (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) ||
    (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
  );
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG computes it over a chunk's type and data. */
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
