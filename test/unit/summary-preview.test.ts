import { headAndTail } from '../../src/pipeline/summary/preview.js';

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
