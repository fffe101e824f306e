import { artifactId, hashArguments, isWellFormedId, sanitizeFilename, segment } from '../../src/artifacts/names.js';
import { decodeBase64Strict } from '../../src/codec/base64.js';

describe('sanitizeFilename', () => {
  test.each([
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\win.ini', 'win.ini'],
    ['C:\\Users\\me\\report.pdf', 'report.pdf'],
    ['/abs/path/file.txt', 'file.txt'],
    ['a\u0000b.txt', 'ab.txt'],
    ['line\nbreak\r\t.txt', 'linebreak.txt'],
    ['del\u007f.txt', 'del.txt'],
    ['evil\u202Etxt.exe', 'eviltxt.exe'],
    ['.hidden', 'hidden'],
    ['...dots', 'dots'],
    ['trailing. . ', 'trailing'],
    ['  lots   of\u00a0 space .pdf ', 'lots of space .pdf'],
    ['what?<is>:this|"*.txt', 'what__is__this___.txt'],
    ['CON.txt', '_CON.txt'],
    ['con', '_con'],
    ['nul.tar.gz', '_nul.tar.gz'],
    ['COM1', '_COM1'],
    ['LPT9.log', '_LPT9.log'],
    ['CONSOLE.txt', 'CONSOLE.txt'],
    ['résumé.pdf', 'résumé.pdf'],
    ['re\u0301sume\u0301.pdf', 'résumé.pdf'],
  ])('%j → %j', (input, expected) => {
    expect(sanitizeFilename(input)).toBe(expected);
  });

  test.each([[''], ['/'], ['\\'], ['.'], ['..'], ['../..'], ['a/'], ['\u0000\u0001'], ['   '], ['. . .']])(
    '%j → undefined',
    (input) => {
      expect(sanitizeFilename(input)).toBeUndefined();
    },
  );

  test('caps at 255 UTF-8 bytes, keeping the extension and whole characters', () => {
    const long = sanitizeFilename(`${'a'.repeat(300)}.pdf`)!;
    expect(Buffer.byteLength(long)).toBe(255);
    expect(long.endsWith('.pdf')).toBe(true);

    const wide = sanitizeFilename(`${'é'.repeat(200)}.txt`)!; // 2 bytes each
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(255);
    expect(wide).toMatch(/^é+\.txt$/);

    const emoji = sanitizeFilename('😀'.repeat(100))!; // 4 bytes each, no extension
    expect(Buffer.byteLength(emoji)).toBe(252);
    expect(emoji).toBe('😀'.repeat(63));

    const hugeExt = sanitizeFilename(`x.${'e'.repeat(300)}`)!;
    expect(Buffer.byteLength(hugeExt)).toBe(255);
  });
});

describe('segment', () => {
  test.each([
    ['github', 'github'],
    ['my server', 'my_server'],
    ['../../etc', '_.._etc'],
    ['.', '_'],
    ['..', '_'],
    ['', '_'],
    ['.hidden', 'hidden'],
    ['a/b\\c', 'a_b_c'],
    ['ünï', '_n_'],
    ['CON', '_CON'],
    ['trail.', 'trail'],
    ['x'.repeat(100), 'x'.repeat(64)],
  ])('%j → %j', (input, expected) => {
    expect(segment(input)).toBe(expected);
  });

  test('never produces a path component that is special', () => {
    for (const s of ['.', '..', '...', '/', '\\', '\u0000', ' ', '.a', 'a.', '....x']) {
      const out = segment(s);
      expect(out).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
      expect(out).not.toMatch(/^\.+$/);
      expect(out.length).toBeLessThanOrEqual(64);
    }
  });
});

describe('artifact ids', () => {
  const sha = 'ab'.repeat(32);

  test('artifactId', () => {
    expect(artifactId('github', 'get_file', sha, 'png')).toBe('github/get_file_abababababab.png');
    expect(artifactId('../../x', '../y', sha, 'pdf')).toBe('_.._x/_y_abababababab.pdf');
  });

  test('isWellFormedId accepts what artifactId makes and nothing that could escape', () => {
    expect(isWellFormedId(artifactId('s', 't', sha, 'bin'))).toBe(true);
    expect(isWellFormedId(artifactId('..', '..', sha, 'bin'))).toBe(true);
    for (const bad of [
      '../x',
      '/etc/passwd',
      'a/../b',
      'a/b/c',
      'a',
      '',
      'a/..',
      './a',
      'a\\b/c',
      'C:/x',
      'a/.b',
      'a/b\u0000',
    ]) {
      expect(isWellFormedId(bad)).toBe(false);
    }
  });

  test('hashArguments is stable under key order and distinguishes values', () => {
    const a = hashArguments({ b: 1, a: { d: [1, 2], c: 'x' } });
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(hashArguments({ a: { c: 'x', d: [1, 2] }, b: 1 })).toBe(a);
    expect(hashArguments({ a: { c: 'x', d: [2, 1] }, b: 1 })).not.toBe(a);
    expect(hashArguments({ a: 1, skipped: undefined })).toBe(hashArguments({ a: 1 }));
    expect(hashArguments(undefined)).toBe(hashArguments(null));
    expect(hashArguments('1')).not.toBe(hashArguments(1));
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(hashArguments(cyclic)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('base64 decoding', () => {
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) & 0xff));
  const decode = (s: string) => decodeBase64Strict(s);

  test('standard, url-safe, unpadded and line-wrapped input', () => {
    const std = bytes.toString('base64');
    expect(decode(std)).toEqual(bytes);
    expect(decode(bytes.toString('base64url'))).toEqual(bytes);
    expect(decode(std.replace(/=+$/, ''))).toEqual(bytes);
    expect(decode(std.replace(/.{76}/g, '$&\r\n'))).toEqual(bytes);
  });

  test.each([
    ['QQ==QQ=='],
    ['QQ='],
    ['QUJD='],
    ['QUJDR'],
    ['QQ==='],
    ['QU%D'],
    ['data:image/png;base64,iVBORw0KGgo='],
    ['QUJD\u0000'],
    ['QUJD😀'],
  ])('rejects %j: never garbage bytes', (input) => {
    expect(decode(input)).toBeUndefined();
  });
});
