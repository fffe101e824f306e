// Deterministic payloads for the offload scenario, built with node alone: the same bytes on every run and every
// Node version (the PNG's pixels come from a fixed pseudo-random sequence and are stored uncompressed, so no zlib
// version can change them).
import zlib from 'node:zlib';

/** xorshift32 from a fixed seed: bytes that do not compress, the same every time. */
function noise(length, seed = 0x9e3779b9) {
  const out = Buffer.alloc(length);
  let x = seed >>> 0;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid 8-bit RGB PNG of noise, `width` x `height` (320x320 is about 300 KB). */
export function noisePng(width, height) {
  const row = 1 + width * 3;
  const raw = noise(height * row);
  for (let y = 0; y < height; y++) raw[y * row] = 0; // each row's filter byte: none
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // color type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JSON document of about `bytes` bytes: an array of records, written compactly. */
export function bigJson(bytes) {
  const items = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const item = `{"id":${i},"name":"item ${i}","price":${(i * 37) % 1000}.25,"tags":["t${i % 7}","t${i % 11}"],"ok":${i % 3 === 0}}`;
    items.push(item);
    size += item.length + 1;
  }
  return `{"items":[${items.join(',')}],"count":${items.length}}`;
}

/** `length` bytes of noise, as base64 (a blob that does not compress). */
export const noiseBase64 = (length) => noise(length, 0x12345678).toString('base64');
