import sharp from 'sharp';
import { markPreview, previewMarkIn } from '../../src/pipeline/preview-mark.js';
import { makePng } from '../fixtures/pdf.mjs';

const uri = 'artifact://fs/read_media_file_0123456789ab.png';
const noise = makePng(300, 200, 5);

test.each([
  ['png', () => sharp(noise).png()],
  ['png palette', () => sharp(noise).png({ palette: true, colors: 16 })],
  ['jpeg', () => sharp(noise).jpeg({ quality: 80, mozjpeg: true })],
  ['jpeg gray', () => sharp(noise).toColorspace('b-w').jpeg()],
])('a marked %s costs a few dozen bytes, still decodes the same, and is recognized', async (_, encode) => {
  const bytes = await encode().toBuffer();
  const marked = markPreview(bytes, uri);
  // The text ("mcp-offload preview of <uri>\n") and its framing: 20 bytes for PNG, 4 for JPEG.
  expect(marked.length - bytes.length).toBeLessThanOrEqual(uri.length + 44);
  const [before, after] = await Promise.all(
    [bytes, marked].map((b) => sharp(b, { failOn: 'warning' }).raw().toBuffer()),
  );
  expect(after!.equals(before!)).toBe(true);
  const base64 = marked.toString('base64');
  expect(previewMarkIn(base64)).toBe(uri);
  expect(previewMarkIn(marked.toString('base64url'))).toBe(uri);
  expect(previewMarkIn(base64.replace(/.{76}/g, '$&\r\n'))).toBe(uri);
  expect(previewMarkIn(`data:image/png;base64,${base64}`)).toBe(uri);
  // Unmarked, or not an image at all: nothing.
  expect(previewMarkIn(bytes.toString('base64'))).toBeUndefined();
  expect(previewMarkIn(Buffer.concat([Buffer.from('text '), marked]).toString('base64'))).toBeUndefined();
});

test('only the head is decoded: a mark far into a long image is not looked for', () => {
  const late = Buffer.concat([
    noise.subarray(0, 33),
    Buffer.alloc(200_000),
    Buffer.from(`mcp-offload preview of ${uri}\n`),
  ]);
  expect(previewMarkIn(late.toString('base64'))).toBeUndefined();
});
