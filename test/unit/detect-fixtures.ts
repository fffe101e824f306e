/**
 * Small but real binary files built in code (no fixture blobs in the repository): each has the header its
 * format's sniffers and size readers look at. Shared by the detect-, facts- and summary- tests.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { crc32, noise as fixtureNoise } from '../fixtures/pdf.mjs';

export { crc32 } from '../fixtures/pdf.mjs';

/** Deterministic filler that looks random (xorshift32), so padding never forms a signature by accident. */
export function noise(length: number, seed = 0x9e3779b9): Buffer {
  return fixtureNoise(length, seed);
}

/** Appends noise up to `length` bytes: enough base64 to pass a 1000-character minimum. */
export function padTo(file: Buffer, length = 3000): Buffer {
  return file.length >= length ? file : Buffer.concat([file, noise(length - file.length)]);
}

function u32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function u16le(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32be(data.length), typeAndData, u32be(crc32(typeAndData))]);
}

export function png(width: number, height: number): Buffer {
  const ihdr = Buffer.concat([u32be(width), u32be(height), Buffer.from([8, 2, 0, 0, 0])]);
  const rows = Buffer.alloc((width * 3 + 1) * height); // filter byte 0 + black RGB pixels
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  ]);
  const sof0 = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    0x01,
    0x22,
    0x00,
    0x02,
    0x11,
    0x01,
    0x03,
    0x11,
    0x01,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0, Buffer.from([0xff, 0xd9])]);
}

export function gif(width: number, height: number): Buffer {
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    u16le(width),
    u16le(height),
    Buffer.from([0x00, 0x00, 0x00]), // no global color table
    Buffer.from([0x3b]), // trailer
  ]);
}

/** Lossless WebP (VP8L): the 14-bit width-1 and height-1 follow the 0x2f signature byte. */
export function webp(width: number, height: number): Buffer {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  const vp8l = Buffer.concat([Buffer.from([0x2f]), u32le(bits), Buffer.alloc(5)]);
  const chunk = Buffer.concat([Buffer.from('VP8L', 'latin1'), u32le(vp8l.length), vp8l]);
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), chunk]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(body.length), body]);
}

export function pdf(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj',
    `2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj`,
    ...Array.from(
      { length: pages },
      (_, i) => `${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj`,
    ),
  ];
  return Buffer.from(
    `%PDF-1.4\n%\xe2\xe3\xcf\xd3\n${objects.join('\n')}\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`,
    'latin1',
  );
}

export interface ZipEntry {
  name: string;
  data: Buffer | string;
}

/** A stored (uncompressed) zip with a central directory: what file-type and unzip tools read. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data, 'utf8');
    const crc = crc32(data);
    const common = Buffer.concat([
      u16le(20),
      u16le(0),
      u16le(0),
      u16le(0),
      u16le(0x21), // version, flags, stored, time, date
      u32le(crc),
      u32le(data.length),
      u32le(data.length),
      u16le(name.length),
      u16le(0),
    ]);
    const local = Buffer.concat([u32le(0x04034b50), common, name, data]);
    centrals.push(
      Buffer.concat([
        u32le(0x02014b50),
        u16le(20),
        common,
        u16le(0),
        u16le(0),
        u16le(0),
        u32le(0),
        u32le(offset),
        name,
      ]),
    );
    locals.push(local);
    offset += local.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.concat([
    u32le(0x06054b50),
    u16le(0),
    u16le(0),
    u16le(entries.length),
    u16le(entries.length),
    u32le(central.length),
    u32le(offset),
    u16le(0),
  ]);
  return Buffer.concat([...locals, central, end]);
}

export function docx(): Buffer {
  const contentTypes =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
    '</Types>';
  const rels =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
    '</Relationships>';
  const document =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>';
  return zip([
    { name: '[Content_Types].xml', data: contentTypes },
    { name: '_rels/.rels', data: rels },
    { name: 'word/document.xml', data: document },
  ]);
}

export function gzip(text = 'hello world\n'.repeat(200)): Buffer {
  return gzipSync(Buffer.from(text, 'utf8'));
}

/** An ID3v2.3 tag (empty) followed by one MPEG-1 Layer III frame header. */
export function mp3(): Buffer {
  const id3 = Buffer.from([0x49, 0x44, 0x33, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
  const frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);
  return Buffer.concat([id3, frame, frame]);
}

/** An `ftyp` box with the isom brand, then an empty `mdat`. */
export function mp4(): Buffer {
  const ftyp = Buffer.concat([
    u32be(24),
    Buffer.from('ftypisom', 'latin1'),
    u32be(0x200),
    Buffer.from('isommp41', 'latin1'),
  ]);
  const mdat = Buffer.concat([u32be(8), Buffer.from('mdat', 'latin1')]);
  return Buffer.concat([ftyp, mdat]);
}

export function wav(): Buffer {
  const fmt = Buffer.concat([
    Buffer.from('fmt ', 'latin1'),
    u32le(16),
    u16le(1),
    u16le(1),
    u32le(8000),
    u32le(16000),
    u16le(2),
    u16le(16),
  ]);
  const samples = Buffer.alloc(800);
  const data = Buffer.concat([Buffer.from('data', 'latin1'), u32le(samples.length), samples]);
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), fmt, data]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(body.length), body]);
}

/** MIME base64 layout: lines of `width` characters joined by `eol`. */
export function wrapLines(base64: string, width = 76, eol = '\n'): string {
  const lines: string[] = [];
  for (let i = 0; i < base64.length; i += width) lines.push(base64.slice(i, i + width));
  return lines.join(eol);
}

/** The url-safe alphabet, unpadded (RFC 4648 §5, as JWTs and many APIs send it). */
export function toUrlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
