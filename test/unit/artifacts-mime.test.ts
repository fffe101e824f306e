import {
  essence,
  extensionFor,
  extensionForFile,
  isGenericMimeType,
  looksLikeSvg,
  mimeTypeForFilename,
  resolveMimeType,
  sniff,
  sniffFile,
} from '../../src/artifacts/mime.js';
import { humanSize } from '../../src/artifacts/sizes.js';
import { SVG, docx, everythingTinyPng, gif, gzip, jpeg, pdf, png, wav, webp, zip } from './artifacts-samples.js';

describe('extensionFor', () => {
  test.each([
    ['application/pdf', 'pdf'],
    ['image/png', 'png'],
    ['image/jpeg', 'jpg'],
    ['image/gif', 'gif'],
    ['image/webp', 'webp'],
    ['image/svg+xml', 'svg'],
    ['audio/mpeg', 'mp3'],
    ['audio/wav', 'wav'],
    ['audio/ogg', 'ogg'],
    ['video/mp4', 'mp4'],
    ['video/webm', 'webm'],
    ['application/zip', 'zip'],
    ['application/json', 'json'],
    ['text/html', 'html'],
    ['text/plain', 'txt'],
    ['text/csv', 'csv'],
    ['text/markdown', 'md'],
  ])('seed table: %s → %s', (type, ext) => {
    expect(extensionFor(type)).toBe(ext);
  });

  test('ignores parameters and case, and knows common aliases', () => {
    expect(extensionFor('Text/Plain; charset=UTF-8')).toBe('txt');
    expect(extensionFor('IMAGE/JPEG')).toBe('jpg');
    expect(extensionFor('image/jpg')).toBe('jpg');
    expect(extensionFor('audio/x-wav')).toBe('wav');
    expect(extensionFor('audio/mp3')).toBe('mp3');
  });

  test('falls back to mime-types, then bin', () => {
    expect(extensionFor('application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toBe('docx');
    expect(extensionFor('application/x-tar')).toBe('tar');
    expect(extensionFor('application/x-made-up')).toBe('bin');
    expect(extensionFor('application/octet-stream')).toBe('bin');
    expect(extensionFor('')).toBe('bin');
    expect(extensionFor('../../etc/passwd')).toBe('bin');
  });

  test('keeps a file name extension only when it names the same type', () => {
    expect(extensionForFile('image/jpeg', 'photo.JPEG')).toBe('jpeg');
    expect(extensionForFile('image/jpeg', 'photo.png')).toBe('jpg');
    expect(extensionForFile('application/pdf', 'report')).toBe('pdf');
    expect(extensionForFile('application/pdf', undefined)).toBe('pdf');
    expect(extensionForFile('application/octet-stream', 'setup.exe')).toBe('bin');
  });
});

test('mimeTypeForFilename', () => {
  expect(mimeTypeForFilename('report.pdf')).toBe('application/pdf');
  expect(mimeTypeForFilename('PHOTO.JPG')).toBe('image/jpeg');
  expect(mimeTypeForFilename('README')).toBeUndefined();
});

test('isGenericMimeType', () => {
  for (const t of [
    undefined,
    '',
    'application/octet-stream',
    'Binary/Octet-Stream',
    'application/x-binary',
    'application/unknown; x=1',
  ]) {
    expect(isGenericMimeType(t)).toBe(true);
  }
  for (const t of ['application/pdf', 'text/plain', 'image/png']) expect(isGenericMimeType(t)).toBe(false);
  expect(essence(' Image/PNG ; q=1')).toBe('image/png');
});

describe('sniff', () => {
  test.each([
    ['PNG', png(), 'image/png', 'png'],
    ['PDF', pdf(), 'application/pdf', 'pdf'],
    ['JPEG', jpeg(), 'image/jpeg', 'jpg'],
    ['GIF', gif(), 'image/gif', 'gif'],
    ['ZIP', zip({ 'a.txt': 'hello' }), 'application/zip', 'zip'],
    ['gzip', gzip(), 'application/gzip', 'gz'],
    ['WebP', webp(), 'image/webp', 'webp'],
    ['WAV', wav(), 'audio/wav', 'wav'],
    ['docx', docx(), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
    ['SVG', Buffer.from(SVG), 'image/svg+xml', 'svg'],
    ['bare SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml', 'svg'],
  ])('%s', async (_name, bytes, mimeType, ext) => {
    expect(await sniff(bytes)).toEqual({ mimeType, ext });
  });

  test('a real PNG from server-everything', async () => {
    const bytes = everythingTinyPng();
    if (!bytes) return; // package not installed: the hand-built PNG above covers the format
    expect((await sniff(bytes))?.mimeType).toBe('image/png');
  });

  test('SVG after a prolog, comments and a doctype with an internal subset', () => {
    const yes = [
      '\uFEFF<svg/>',
      '<?xml version="1.0"?>\n<?xml-stylesheet href="a.css"?>\n<!-- a > b -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd">\n<svg width="1">',
      '<!DOCTYPE svg [ <!ENTITY a "x>y"> ]>\n<SVG xmlns="http://www.w3.org/2000/svg">',
    ];
    const no = [
      '<svgfoo>',
      '<html><svg/></html>',
      '<!-- never closed <svg>',
      '<!DOCTYPE svg [ <svg>',
      '<?xml <svg>',
      'svg',
      '',
    ];
    for (const s of yes) expect(looksLikeSvg(Buffer.from(s))).toBe(true);
    for (const s of no) expect(looksLikeSvg(Buffer.from(s))).toBe(false);
  });

  test('hostile prologs are not SVG (their cost as they grow is measured by npm run bench, group adversarial)', () => {
    for (const s of [
      '<!-- -->'.repeat(512),
      '<!DOCTYPE x>'.repeat(340),
      '<!DOCTYPE [ ]'.repeat(300),
      `<!DOCTYPE${' '.repeat(4090)}`,
      '<?'.repeat(2000),
    ]) {
      expect(looksLikeSvg(Buffer.from(s))).toBe(false);
    }
  });

  test('plain text, empty input and truncated headers are unknown', async () => {
    expect(await sniff(Buffer.from('just some words'))).toBeUndefined();
    expect(await sniff(Buffer.alloc(0))).toBeUndefined();
    expect(await sniff(Buffer.from('<html><svg></svg></html>'))).toBeUndefined();
    expect(await sniff(png().subarray(0, 4))).toBeUndefined();
  });
});

describe('sniffFile', () => {
  // A path where no file is: what needs the file finds nothing there, what the head answers does not read it.
  const nowhere = '/nonexistent/mcp-offload-sniff-test';

  test.each([
    ['PNG', png(), 'image/png'],
    ['docx', docx(), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['SVG', Buffer.from(SVG), 'image/svg+xml'],
  ])(
    'a %s the head holds whole is sniffed from the head, as sniff would, without opening the file',
    async (_n, bytes, type) => {
      expect((await sniffFile(nowhere, bytes, bytes.length))?.mimeType).toBe(type);
      expect(await sniffFile(nowhere, bytes, bytes.length)).toEqual(await sniff(bytes));
    },
  );

  test('a file larger than its head is read from the file (here: none, so nothing is found)', async () => {
    const bytes = docx();
    expect(await sniffFile(nowhere, bytes.subarray(0, 100), bytes.length)).toBeUndefined();
  });
});

describe('resolveMimeType', () => {
  test('octet-stream or missing with PDF bytes → application/pdf', async () => {
    expect(await resolveMimeType('application/octet-stream', pdf())).toBe('application/pdf');
    expect(await resolveMimeType(undefined, pdf())).toBe('application/pdf');
    expect(await resolveMimeType('', png())).toBe('image/png');
  });

  test('generic and unrecognizable → application/octet-stream', async () => {
    expect(await resolveMimeType(undefined, Buffer.from([1, 2, 3]))).toBe('application/octet-stream');
    expect(await resolveMimeType('binary/octet-stream', Buffer.from('hello'))).toBe('application/octet-stream');
  });

  test('a binary declaration the bytes contradict loses: image/png with PDF bytes → application/pdf', async () => {
    expect(await resolveMimeType('image/png', pdf())).toBe('application/pdf');
    expect(await resolveMimeType('image/png', jpeg())).toBe('image/jpeg');
    expect(await resolveMimeType('application/pdf', png())).toBe('image/png');
  });

  test('a consistent declaration is kept, normalized', async () => {
    expect(await resolveMimeType('image/png', png())).toBe('image/png');
    expect(await resolveMimeType('Image/JPG', jpeg())).toBe('image/jpeg');
    expect(await resolveMimeType('application/pdf; name=x.pdf', pdf())).toBe('application/pdf');
  });

  test('a declaration that cannot be checked is kept', async () => {
    expect(await resolveMimeType('application/x-custom-model', Buffer.from([9, 8, 7, 6]))).toBe(
      'application/x-custom-model',
    );
    // Unless the bytes are known under another name: the registered one is as good.
    expect(await resolveMimeType('application/x-parquet', Buffer.from('PAR1....PAR1'))).toBe(
      'application/vnd.apache.parquet',
    );
    expect(await resolveMimeType('image/png', Buffer.from([0, 1, 2]))).toBe('image/png');
  });

  test('a specific type over its container is a refinement, and a container gets refined', async () => {
    const xlsm = 'application/vnd.ms-excel.sheet.macroenabled.12';
    expect(await resolveMimeType(xlsm, zip({ 'a.txt': 'x' }))).toBe(xlsm);
    expect(await resolveMimeType('application/zip', docx())).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(await resolveMimeType('image/png', zip({ 'a.txt': 'x' }))).toBe('application/zip');
    expect(await resolveMimeType('audio/x-wav', wav())).toBe('audio/wav');
    expect(await resolveMimeType('video/x-msvideo', wav())).toBe('video/x-msvideo');
  });

  test('text declarations are trusted as is', async () => {
    expect(await resolveMimeType('text/plain; charset=utf-8', pdf())).toBe('text/plain');
    expect(await resolveMimeType('application/json', png())).toBe('application/json');
    expect(await resolveMimeType('image/svg+xml', Buffer.from(SVG))).toBe('image/svg+xml');
    expect(await resolveMimeType('application/xml', Buffer.from(SVG))).toBe('application/xml');
  });

  test('an SVG declared as octet-stream is found', async () => {
    expect(await resolveMimeType('application/octet-stream', Buffer.from(SVG))).toBe('image/svg+xml');
  });
});

test('humanSize', () => {
  expect(humanSize(0)).toBe('0 B');
  expect(humanSize(512)).toBe('512 B');
  expect(humanSize(1023)).toBe('1023 B');
  expect(humanSize(1024)).toBe('1.0 KB');
  expect(humanSize(145_818)).toBe('142.4 KB');
  expect(humanSize(1024 * 1024)).toBe('1.0 MB');
  expect(humanSize(1024 * 1024 - 1)).toBe('1.0 MB');
  expect(humanSize(5.5 * 1024 ** 3)).toBe('5.5 GB');
  expect(humanSize(3 * 1024 ** 4)).toBe('3072.0 GB');
  expect(humanSize(Number.NaN)).toBe('0 B');
});
