import { decodeBase64Prefix, isFullyBase64, mightBeBase64 } from '../../src/codec/base64.js';
import { detectBase64Binary } from '../../src/pipeline/detect/base64.js';
import * as fx from './detect-fixtures.js';

const b64 = (bytes: Buffer): string => bytes.toString('base64');

describe('mightBeBase64', () => {
  const long = b64(fx.noise(3000));

  test('accepts long base64 in either alphabet, wrapped or not', () => {
    expect(mightBeBase64(long, 1000)).toBe(true);
    expect(mightBeBase64(fx.wrapLines(long), 1000)).toBe(true);
    expect(mightBeBase64(fx.wrapLines(long, 76, '\r\n'), 1000)).toBe(true);
    expect(mightBeBase64(fx.toUrlSafe(long), 1000)).toBe(true);
  });

  test('rejects strings shorter than the minimum', () => {
    expect(mightBeBase64(long.slice(0, 999), 1000)).toBe(false);
    expect(mightBeBase64('QUJD', 0)).toBe(true);
    expect(mightBeBase64('QUI', 0)).toBe(false);
  });

  test('bails out on a space in any sampled window', () => {
    expect(mightBeBase64(`a b${long}`, 1000)).toBe(false);
    const middle = Math.floor(long.length / 2);
    expect(mightBeBase64(`${long.slice(0, middle)} ${long.slice(middle + 1)}`, 1000)).toBe(false);
    expect(mightBeBase64(`${long.slice(0, -3)} ab`, 1000)).toBe(false);
  });

  test('allows = only as the last two characters', () => {
    expect(mightBeBase64(`${long}==`, 1000)).toBe(true);
    expect(mightBeBase64(`${long}==\n`, 1000)).toBe(true);
    expect(mightBeBase64(`${long}===`, 1000)).toBe(false);
    expect(mightBeBase64(`=${long}`, 1000)).toBe(false);
  });

  test('rejects a mix of the standard and url-safe alphabets', () => {
    expect(mightBeBase64(`+${long.replace(/[+/]/g, 'A')}_`, 1000)).toBe(false);
  });

  test('does not look past its samples (that is isFullyBase64’s job)', () => {
    const s = `${'A'.repeat(1300)}!${'A'.repeat(700)}`; // '!' between the middle windows
    expect(mightBeBase64(s, 1000)).toBe(true);
    expect(isFullyBase64(s)).toBe(false);
  });
});

describe('decodeBase64Prefix', () => {
  const bytes = fx.noise(10_000);

  test('decodes the first 4100 bytes by default', () => {
    const prefix = decodeBase64Prefix(b64(bytes));
    expect(prefix.length).toBe(4100);
    expect(prefix.equals(bytes.subarray(0, 4100))).toBe(true);
  });

  test('skips line breaks and decodes the url-safe alphabet', () => {
    expect(decodeBase64Prefix(fx.wrapLines(b64(bytes), 76, '\r\n'), 500).equals(bytes.subarray(0, 500))).toBe(true);
    expect(decodeBase64Prefix(fx.wrapLines(b64(bytes), 64), 1000).equals(bytes.subarray(0, 1000))).toBe(true);
    expect(decodeBase64Prefix(fx.toUrlSafe(b64(bytes)), 777).equals(bytes.subarray(0, 777))).toBe(true);
  });

  test('returns all of a short string', () => {
    expect(decodeBase64Prefix(b64(Buffer.from('hello')))).toEqual(Buffer.from('hello'));
    expect(decodeBase64Prefix('')).toEqual(Buffer.alloc(0));
  });
});

describe('isFullyBase64', () => {
  test.each([
    ['padded', 'aGVsbG8='],
    ['double padded', 'aGVsbG8hIQ=='],
    ['unpadded, 2 left over', 'aGVsbG8'],
    ['unpadded, 3 left over', 'aGVsbG8hIQ'],
    ['exact', 'aGVs'],
    ['url-safe', 'a-_b'],
    ['wrapped at 76', fx.wrapLines(b64(fx.noise(1000)))],
    ['wrapped at 76 with CRLF and a final newline', `${fx.wrapLines(b64(fx.noise(1000)), 76, '\r\n')}\r\n`],
    ['wrapped at 64 (PEM)', fx.wrapLines(b64(fx.noise(1000)), 64)],
  ])('accepts %s', (_, s) => {
    expect(isFullyBase64(s)).toBe(true);
  });

  test.each([
    ['empty', ''],
    ['only line breaks', '\n\n'],
    ['1 left over', 'aGVsb'],
    ['data after padding', 'aGVs=bG8='],
    ['three padding characters', 'aGVsbG==='],
    ['padding that does not complete a quantum', 'aGVsbG8hI='],
    ['a space', 'aGVs bG8='],
    ['a dot (JWT)', 'aGVs.bG8h'],
    ['both alphabets', 'a+b_'],
    ['non-ASCII', 'aGVsbé8='],
    ['lines of different widths', `${'A'.repeat(76)}\n${'A'.repeat(72)}\n${'A'.repeat(76)}`],
    ['a first line that is not a multiple of 4', `${'A'.repeat(75)}\n${'A'.repeat(75)}`],
    ['a last line longer than the others', `${'A'.repeat(76)}\n${'A'.repeat(80)}`],
  ])('rejects %s', (_, s) => {
    expect(isFullyBase64(s)).toBe(false);
  });
});

describe('detectBase64Binary: true positives', () => {
  const files: Array<[string, Buffer, string]> = [
    ['PDF', fx.pdf(2), 'application/pdf'],
    ['PNG', fx.png(16, 16), 'image/png'],
    ['JPEG', fx.jpeg(64, 48), 'image/jpeg'],
    ['GIF', fx.gif(10, 10), 'image/gif'],
    ['WebP', fx.webp(20, 10), 'image/webp'],
    ['ZIP', fx.zip([{ name: 'notes.txt', data: 'hello' }]), 'application/zip'],
    ['DOCX', fx.docx(), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['gzip', fx.gzip(), 'application/gzip'],
    ['MP3 (ID3)', fx.mp3(), 'audio/mpeg'],
    ['MP4 (ftyp)', fx.mp4(), 'video/mp4'],
    ['WAV', fx.wav(), 'audio/wav'],
  ];

  const layouts: Array<[string, (s: string) => string]> = [
    ['one line', (s) => s],
    ['76-character lines', (s) => fx.wrapLines(s)],
    ['76-character CRLF lines', (s) => fx.wrapLines(s, 76, '\r\n')],
    ['url-safe, unpadded', (s) => fx.toUrlSafe(s)],
  ];

  for (const [name, file, mimeType] of files) {
    test.each(layouts)(`${name} as %s`, async (_, layout) => {
      const encoded = layout(b64(fx.padTo(file)));
      const found = await detectBase64Binary(encoded);
      expect(found?.mimeType).toBe(mimeType);
      expect(found?.ext).toMatch(/^[a-z0-9]+$/);
    });
  }

  test('the minimum length is honored', async () => {
    const small = b64(fx.png(1, 1));
    expect(small.length).toBeLessThan(1000);
    expect(await detectBase64Binary(small)).toBeUndefined();
    expect(await detectBase64Binary(small, 10)).toEqual({ mimeType: 'image/png', ext: 'png' });
  });

  test('a signature followed by a string that is not base64 all the way is rejected', async () => {
    const good = b64(fx.padTo(fx.pdf(1)));
    expect(await detectBase64Binary(`${good.slice(0, 3000)}.${good.slice(3001)}`)).toBeUndefined();
    expect(await detectBase64Binary(`${good}!`)).toBeUndefined();
  });

  test('a base64 text format (SVG, XML) is not called binary', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${'<rect/>'.repeat(300)}</svg>`;
    expect(await detectBase64Binary(Buffer.from(svg).toString('base64'))).toBeUndefined();
    const xml = `<?xml version="1.0"?><root>${'<item>x</item>'.repeat(200)}</root>`;
    expect(await detectBase64Binary(Buffer.from(xml).toString('base64'))).toBeUndefined();
  });
});
