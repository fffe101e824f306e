import { findDataUris, replaceRanges } from '../../src/pipeline/detect/data-uri.js';
import { noise, png } from './detect-fixtures.js';

const PNG64 = Buffer.concat([png(8, 8), noise(2000)]).toString('base64');

describe('findDataUris', () => {
  test('finds a markdown image and reports where it starts and ends', () => {
    const text = `Here is the chart:\n\n![chart](data:image/png;base64,${PNG64})\n\nDone.`;
    const [match, ...rest] = findDataUris(text, 100);
    expect(rest).toEqual([]);
    expect(match).toMatchObject({ mimeType: 'image/png', base64: true, payload: PNG64, parameters: {} });
    expect(text.slice(match.start, match.end)).toBe(`data:image/png;base64,${PNG64}`);
    expect(text[match.end]).toBe(')');
  });

  test('finds URIs in HTML attributes, quoted either way, and bare', () => {
    const text = [
      `<img src="data:image/png;base64,${PNG64}">`,
      `<img src='data:image/jpeg;base64,${PNG64}'/>`,
      `data:application/pdf;name=report.pdf;base64,${PNG64} and more`,
    ].join('\n');
    const found = findDataUris(text, 100);
    expect(found.map((m) => m.mimeType)).toEqual(['image/png', 'image/jpeg', 'application/pdf']);
    expect(found.every((m) => m.payload === PNG64)).toBe(true);
    expect(found[2].parameters).toEqual({ name: 'report.pdf' });
    expect(text[found[0].end]).toBe('"');
    expect(text[found[1].end]).toBe("'");
    expect(text[found[2].end]).toBe(' ');
  });

  test('keeps the url-safe alphabet and padding inside the payload', () => {
    const payload = `${'ab-_'.repeat(300)}==`;
    const [match] = findDataUris(`x data:image/webp;base64,${payload}>`, 10);
    expect(match.payload).toBe(payload);
  });

  test('skips payloads below the minimum length', () => {
    expect(findDataUris(`![x](data:image/png;base64,${PNG64.slice(0, 99)})`, 100)).toEqual([]);
    expect(findDataUris(`![x](data:image/png;base64,${PNG64.slice(0, 100)})`, 100)).toHaveLength(1);
  });

  test('decodes percent-encoded payloads, and skips ones that do not decode', () => {
    const encoded = encodeURIComponent('hello, wörld! '.repeat(20));
    const [match] = findDataUris(`see data:text/plain;charset=utf-8,${encoded} ok`, 50);
    expect(match).toMatchObject({
      mimeType: 'text/plain',
      base64: false,
      payload: 'hello, wörld! '.repeat(20),
      parameters: { charset: 'utf-8' },
    });
    expect(findDataUris(`data:text/plain,${'%E0%A4%A'.repeat(20)}`, 10)).toEqual([]);
  });

  test('an empty media type means text/plain', () => {
    const [match] = findDataUris(`data:;base64,${PNG64}`, 10);
    expect(match.mimeType).toBe('text/plain');
    expect(findDataUris(`data:,${'x'.repeat(20)}`, 10)[0]).toMatchObject({
      mimeType: 'text/plain',
      payload: 'x'.repeat(20),
    });
  });

  test('lower-cases the media type', () => {
    expect(findDataUris(`data:Image/PNG;BASE64,${PNG64}`, 10)[0]).toMatchObject({
      mimeType: 'image/png',
      base64: true,
    });
  });

  test('ignores data: inside a word, malformed headers and prose', () => {
    const text = [
      `metadata:image/png;base64,${PNG64}`,
      `data: image/png;base64,${PNG64}`,
      `data:image;base64,${PNG64}`,
      `data:image/png;charset;base64,${PNG64}`,
      'The data: it is here, and it is long enough to matter for this test of prose.',
      `data:${'x'.repeat(300)},${PNG64}`,
    ].join('\n');
    expect(findDataUris(text, 10)).toEqual([]);
  });

  test('finds many URIs in one text, in order and without overlap', () => {
    const text = Array.from(
      { length: 50 },
      (_, i) => `item ${i}: ![i](data:image/png;base64,${PNG64.slice(0, 200 + i)})`,
    ).join('\n');
    const found = findDataUris(text, 100);
    expect(found).toHaveLength(50);
    for (let i = 1; i < found.length; i++) expect(found[i].start).toBeGreaterThanOrEqual(found[i - 1].end);
  });

  // What these cost as they grow is measured by npm run bench (group adversarial), not asserted here.
  test('finds nothing in adversarial input (many "data:" and no comma)', () => {
    expect(findDataUris('data:'.repeat(200_000), 1)).toEqual([]);
  });

  test('finds nothing when the comma is far away', () => {
    expect(findDataUris(`${'data:image/png;'.repeat(50_000)}${'a'.repeat(10_000)},`, 1)).toEqual([]);
  });
});

describe('replaceRanges', () => {
  test('replaces ranges given in any order', () => {
    expect(
      replaceRanges('aaa BBB ccc DDD', [
        { start: 12, end: 15, replacement: 'd' },
        { start: 4, end: 7, replacement: 'b' },
      ]),
    ).toBe('aaa b ccc d');
  });

  test('handles adjacent, empty and edge ranges', () => {
    expect(replaceRanges('abc', [])).toBe('abc');
    expect(
      replaceRanges('abc', [
        { start: 0, end: 1, replacement: 'X' },
        { start: 1, end: 3, replacement: 'Y' },
      ]),
    ).toBe('XY');
    expect(replaceRanges('abc', [{ start: 3, end: 3, replacement: '!' }])).toBe('abc!');
  });

  test('replaces found data URIs with references', () => {
    const text = `a ![x](data:image/png;base64,${PNG64}) b <img src="data:image/png;base64,${PNG64}"> c`;
    const replaced = replaceRanges(
      text,
      findDataUris(text, 100).map((m, i) => ({ start: m.start, end: m.end, replacement: `artifact://s/img${i}.png` })),
    );
    expect(replaced).toBe('a ![x](artifact://s/img0.png) b <img src="artifact://s/img1.png"> c');
  });

  test('throws on overlapping or out-of-range ranges', () => {
    expect(() =>
      replaceRanges('abcdef', [
        { start: 0, end: 3, replacement: '' },
        { start: 2, end: 4, replacement: '' },
      ]),
    ).toThrow(RangeError);
    expect(() => replaceRanges('abc', [{ start: 2, end: 5, replacement: '' }])).toThrow(RangeError);
    expect(() => replaceRanges('abc', [{ start: 2, end: 1, replacement: '' }])).toThrow(RangeError);
  });
});
