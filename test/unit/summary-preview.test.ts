import { previewText } from '../../src/pipeline/summary/preview.js';

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
