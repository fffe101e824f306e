import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimateTokens, factsFor, factsWatcher } from '../../src/pipeline/facts/index.js';
import { makeObjectStreamPdf } from '../fixtures/pdf.mjs';
import * as fx from './detect-fixtures.js';

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('factsFor: images', () => {
  test.each([
    ['image/png', fx.png(640, 480)],
    ['image/jpeg', fx.jpeg(640, 480)],
    ['image/gif', fx.gif(640, 480)],
    ['image/webp', fx.webp(640, 480)],
  ])('%s dimensions', async (mimeType, bytes) => {
    expect(await factsFor(bytes, mimeType)).toEqual({ width: 640, height: 480 });
  });

  test('unreadable images have no dimensions', async () => {
    expect(await factsFor(Buffer.from('not an image'), 'image/png')).toEqual({});
    expect(await factsFor(Buffer.alloc(3000), 'image/x-unknown')).toEqual({});
    expect(await factsFor(Buffer.alloc(0), 'image/png')).toEqual({});
  });

  test('SVG gets its size and the text facts', async () => {
    const facts = await factsFor(
      text('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"></svg>\n'),
      'image/svg+xml',
    );
    expect(facts).toMatchObject({ width: 100, height: 50, lines: 1 });
  });
});

describe('factsFor: PDF', () => {
  test('a PDF whose pages sit in a compressed object stream: the page tree tells (pdf.js)', async () => {
    const pdf = makeObjectStreamPdf('Compressed', 9);
    expect(pdf.includes('/Type /Page')).toBe(false);
    expect(await factsFor(pdf, 'application/pdf')).toEqual({ pages: 9 });
  });

  test('stored piece by piece, the same count', async () => {
    const pdf = makeObjectStreamPdf('Pieces', 4);
    const watcher = factsWatcher('application/pdf');
    for (let at = 0; at < pdf.length; at += 100) watcher.add(pdf.subarray(at, at + 100));
    const path = join(tmpdir(), `facts-pdf-${process.pid}.pdf`);
    await writeFile(path, pdf);
    try {
      expect(await watcher.finish({ path, size: pdf.length, head: pdf.subarray(0, 4096) })).toEqual({ pages: 4 });
    } finally {
      await rm(path, { force: true });
    }
  });

  test('damaged or password-protected files get no count and never an error', async () => {
    const damaged = Buffer.concat([makeObjectStreamPdf('x', 3).subarray(0, 300), Buffer.from('garbage')]);
    expect(await factsFor(damaged, 'application/pdf')).toEqual({});
    const encrypted = text('%PDF-1.6\ntrailer << /Root 1 0 R /Encrypt << /Filter /Standard /V 5 /R 6 >> >>\n%%EOF');
    expect(await factsFor(encrypted, 'application/pdf')).toEqual({});
  });

  test('a PDF without object streams whose pages the scan does not find is not read back', async () => {
    const pdf = text('%PDF-1.4\n' + 'filler '.repeat(1000));
    const watcher = factsWatcher('application/pdf');
    for (let at = 0; at < pdf.length; at += 100) watcher.add(pdf.subarray(at, at + 100));
    // The file at the path is another PDF, whose page tree pdf.js would count: had it been read back, there would be
    // pages. The bytes that passed had no object stream, so there is nothing for pdf.js to find.
    const path = join(tmpdir(), `facts-pdf-not-read-${process.pid}.pdf`);
    await writeFile(path, makeObjectStreamPdf('Elsewhere', 4));
    try {
      expect(await watcher.finish({ path, size: pdf.length, head: pdf.subarray(0, 4096) })).toEqual({});
    } finally {
      await rm(path, { force: true });
    }
  });

  test('counts pages of a plain PDF', async () => {
    expect(await factsFor(fx.pdf(12), 'application/pdf')).toEqual({ pages: 12 });
    expect(await factsFor(fx.pdf(1), 'application/pdf; name=x.pdf')).toEqual({ pages: 1 });
  });

  test('past what pdf.js reads (not a PDF it can open here): accepts /Type/Page without a space, ignores other /Page… names', async () => {
    const pdf = text(
      '%PDF-1.7\n1 0 obj <</Type/Page>> 2 0 obj <</Type /PageLabel>> 3 0 obj <</Type  /Page/Parent 4 0 R>>',
    );
    expect(await factsFor(pdf, 'application/pdf')).toEqual({ pages: 2 });
  });

  test('falls back to a linearized file’s /N when page objects are compressed', async () => {
    const pdf = text(
      '%PDF-1.5\n1 0 obj\n<< /Linearized 1 /L 12345 /H [ 500 100 ] /O 4 /E 2000 /N 7 /T 12000 >>\nendobj\nstream...',
    );
    expect(await factsFor(pdf, 'application/pdf')).toEqual({ pages: 7 });
  });

  test('gives no count rather than a wrong one', async () => {
    expect(await factsFor(text('%PDF-1.5\n<< /Type /ObjStm /N 40 >> stream ... endstream'), 'application/pdf')).toEqual(
      {},
    );
  });
});

describe('factsFor: text', () => {
  test('lines, characters, tokens and the first 5 lines', async () => {
    const body = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n');
    expect(await factsFor(text(`${body}\n`), 'text/plain; charset=utf-8')).toEqual({
      lines: 10,
      chars: body.length + 1,
      estimatedTokens: Math.ceil((body.length + 1) / 4),
      head: ['line 0', 'line 1', 'line 2', 'line 3', 'line 4'],
    });
  });

  test('counts characters as JavaScript does, for any UTF-8', async () => {
    const s = 'héllo wörld — 日本語 🎉\r\nsecond';
    const facts = await factsFor(text(s), 'text/markdown');
    expect(facts.chars).toBe(s.length);
    expect(facts.lines).toBe(2);
    expect(facts.head).toEqual(['héllo wörld — 日本語 🎉', 'second']);
  });

  test('skips a byte order mark', async () => {
    expect(await factsFor(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text('abc')]), 'text/plain')).toMatchObject({
      chars: 3,
      head: ['abc'],
    });
  });

  test('cuts long head lines at 200 characters', async () => {
    const facts = await factsFor(text(`${'x'.repeat(1000)}\nshort`), 'text/plain');
    expect(facts.head).toEqual([`${'x'.repeat(200)}…`, 'short']);
  });

  test('keeps blank lines in the head, but not the final newline', async () => {
    expect((await factsFor(text('a\n\nb\n'), 'text/plain')).head).toEqual(['a', '', 'b']);
    expect((await factsFor(text('a\n\n\n\n\n\n\n'), 'text/plain')).head).toEqual(['a', '', '', '', '']);
  });

  test('an empty text', async () => {
    expect(await factsFor(Buffer.alloc(0), 'text/plain')).toEqual({ lines: 0, chars: 0, estimatedTokens: 0, head: [] });
  });

  test('XML, YAML and JavaScript count as text', async () => {
    for (const type of ['application/xml', 'application/yaml', 'application/javascript', 'application/atom+xml']) {
      expect(await factsFor(text('a\nb'), type)).toMatchObject({ lines: 2 });
    }
  });

  test('a large text is counted without trouble', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 'abcdefghi\n');
    const facts = await factsFor(big, 'text/plain');
    expect(facts).toMatchObject({
      lines: 2 * 1024 * 1024,
      chars: big.length,
      head: ['abcdefghi', 'abcdefghi', 'abcdefghi', 'abcdefghi', 'abcdefghi'],
    });
  });
});

describe('factsFor: CSV', () => {
  test('columns from the header row, honoring quotes', async () => {
    const csv = 'id,"name, full",email,"say ""hi"""\n1,"Ann, B",a@b.c,hi\n';
    expect(await factsFor(text(csv), 'text/csv')).toMatchObject({
      columns: ['id', 'name, full', 'email', 'say "hi"'],
      columnCount: 4,
      lines: 2,
    });
  });

  test('at most 20 columns, with the full count', async () => {
    const header = Array.from({ length: 25 }, (_, i) => `c${i}`).join(',');
    const facts = await factsFor(text(`${header}\n`), 'text/csv');
    expect(facts.columns).toHaveLength(20);
    expect(facts.columnCount).toBe(25);
  });

  test('tab-separated values', async () => {
    expect(await factsFor(text('a\tb\tc\n1\t2\t3'), 'text/tab-separated-values')).toMatchObject({
      columns: ['a', 'b', 'c'],
    });
  });
});

describe('factsFor: JSON', () => {
  test('an object: its keys and their types, plus the text facts', async () => {
    const doc = {
      name: 'Sales Report',
      items: Array.from({ length: 340 }, (_, i) => i),
      meta: { a: 1, b: 2 },
      total: 3.5,
      ok: true,
      none: null,
    };
    const facts = await factsFor(text(JSON.stringify(doc)), 'application/json');
    expect(facts.outline).toEqual({
      type: 'object',
      keys: {
        name: 'string(12 chars)',
        items: 'array(340)',
        meta: 'object(2 keys)',
        total: 'number',
        ok: 'boolean',
        none: 'null',
      },
    });
    expect(facts).toMatchObject({ lines: 1 });
  });

  test('+json types and text that parses as JSON get an outline too', async () => {
    expect((await factsFor(text('[1,2]'), 'application/vnd.api+json')).outline).toEqual({
      type: 'array',
      length: 2,
      first: 'number',
    });
    expect((await factsFor(text('  {"a": "b"}'), 'text/plain')).outline).toEqual({
      type: 'object',
      keys: { a: 'string(1 char)' },
    });
  });

  test('text that is not JSON has no outline', async () => {
    expect((await factsFor(text('{not json'), 'application/json')).outline).toBeUndefined();
    expect((await factsFor(text('{"a":1}\n{"a":2}\n'), 'application/x-ndjson')).outline).toBeUndefined();
    expect((await factsFor(text('hello'), 'text/plain')).outline).toBeUndefined();
  });
});

describe('factsFor: anything else', () => {
  test('unknown and binary types have no facts', async () => {
    expect(await factsFor(fx.zip([{ name: 'a', data: 'b' }]), 'application/zip')).toEqual({});
    expect(await factsFor(fx.mp3(), 'audio/mpeg')).toEqual({});
    expect(await factsFor(Buffer.from('x'), '')).toEqual({});
    expect(await factsFor(Buffer.from('x'), 'not a mime type')).toEqual({});
  });
});

describe('estimateTokens', () => {
  test('about four characters a token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('x'.repeat(120_400))).toBe(30_100);
  });
});
