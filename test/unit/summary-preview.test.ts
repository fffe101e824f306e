import { headAndTail, previewText } from '../../src/pipeline/summary/preview.js';

describe('previewText', () => {
  test('returns short text unchanged', () => {
    expect(previewText('hello', 10)).toEqual({ preview: 'hello', truncated: false });
    expect(previewText('hello', 5)).toEqual({ preview: 'hello', truncated: false });
    expect(previewText('', 0)).toEqual({ preview: '', truncated: false });
  });

  test('cuts at a line end near the limit', () => {
    const text = `${'a'.repeat(90)}\n${'b'.repeat(100)}`;
    expect(previewText(text, 100)).toEqual({ preview: `${'a'.repeat(90)}\n… [101 more characters]`, truncated: true });
  });

  test('a line end exactly at the limit keeps the whole line', () => {
    const text = `${'a'.repeat(100)}\n${'b'.repeat(10)}`;
    expect(previewText(text, 100).preview).toBe(`${'a'.repeat(100)}\n… [11 more characters]`);
  });

  test('drops the \\r of a CRLF line end', () => {
    const text = `${'a'.repeat(95)}\r\n${'b'.repeat(100)}`;
    expect(previewText(text, 100).preview).toBe(`${'a'.repeat(95)}\n… [102 more characters]`);
  });

  test('cuts mid-line when no line end is near', () => {
    const text = `${'a'.repeat(10)}\n${'b'.repeat(200)}`;
    expect(previewText(text, 100)).toEqual({
      preview: `${text.slice(0, 100)}… [111 more characters]`,
      truncated: true,
    });
  });

  test('never splits a surrogate pair', () => {
    const text = `${'a'.repeat(9)}🎉🎉🎉`;
    const { preview } = previewText(text, 10);
    expect(preview).toBe(`${'a'.repeat(9)}… [6 more characters]`);
    expect(preview).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  test('a zero limit keeps nothing', () => {
    expect(previewText('abc', 0)).toEqual({ preview: '… [3 more characters]', truncated: true });
    expect(previewText('abcd', 3)).toEqual({ preview: 'abc… [1 more character]', truncated: true });
  });
});

describe('headAndTail', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

  test('a text that fits is shown whole', () => {
    expect(headAndTail(lines(3), 100)).toEqual({ preview: lines(3), truncated: false });
  });

  test('shows the first and the last whole lines, and counts what is between', () => {
    const text = lines(1000);
    const { preview, truncated } = headAndTail(text, 300);
    expect(truncated).toBe(true);
    const [head, tail] = preview.split(/\n… \[\d+ lines, \d+ characters not shown\] …\n/);
    expect(head!.startsWith('line 1\nline 2\n')).toBe(true);
    expect(tail!.endsWith('line 999\nline 1000')).toBe(true);
    const shown = [...head!.split('\n'), ...tail!.split('\n')];
    expect(new Set(shown).size).toBe(shown.length); // no line twice
    expect(shown.every((l) => /^line \d+$/.test(l))).toBe(true); // only whole lines
    const omitted = Number(/\[(\d+) lines/.exec(preview)![1]);
    expect(shown.length + omitted).toBe(1000);
    expect(preview.length).toBeLessThan(300 + 60);
  });

  test('a long text without line ends is cut at characters', () => {
    const { preview } = headAndTail('x'.repeat(1000), 90);
    expect(preview).toMatch(/^x{60}\n… \[1 line, 940 characters not shown\] …$/);
  });
});
