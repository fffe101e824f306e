import { MAX_SUMMARY_CHARS, summaryText, type SummaryInput } from '../../src/pipeline/summary/describe.js';

const base: SummaryInput = {
  path: '/abs/path/tableau/download_workbook_ab12cd34ef56.pdf',
  uri: 'artifact://tableau/download_workbook_ab12cd34ef56.pdf',
  mimeType: 'application/pdf',
  size: 145832,
};

describe('summaryText', () => {
  test('the ABP-style example', () => {
    expect(summaryText({ ...base, metadata: { name: 'Sales Dashboard', format: 'pdf' }, facts: { pages: 12 } })).toBe(
      [
        'File saved: /abs/path/tableau/download_workbook_ab12cd34ef56.pdf',
        'Type: application/pdf',
        'Size: 145832 bytes (142.4 KB)',
        'Metadata: {"name":"Sales Dashboard","format":"pdf"}',
        'Pages: 12',
        'Resource: artifact://tableau/download_workbook_ab12cd34ef56.pdf',
      ].join('\n'),
    );
  });

  test('the minimum: path, type, size, resource', () => {
    expect(summaryText({ ...base, size: 512, metadata: {}, facts: {} })).toBe(
      [
        'File saved: /abs/path/tableau/download_workbook_ab12cd34ef56.pdf',
        'Type: application/pdf',
        'Size: 512 bytes',
        'Resource: artifact://tableau/download_workbook_ab12cd34ef56.pdf',
      ].join('\n'),
    );
  });

  test('image dimensions and a download URL', () => {
    const text = summaryText({
      ...base,
      mimeType: 'image/png',
      facts: { width: 640, height: 480 },
      downloadUrl: 'https://x/y.png',
    });
    expect(text.split('\n').slice(3)).toEqual([
      'Dimensions: 640x480',
      `Resource: ${base.uri}`,
      'Download: https://x/y.png',
    ]);
  });

  test('text facts: lines and tokens, columns, outline, and the head last', () => {
    const text = summaryText({
      ...base,
      mimeType: 'text/csv',
      facts: {
        lines: 1204,
        chars: 120_400,
        estimatedTokens: 30_100,
        columns: ['id', 'name'],
        columnCount: 5,
        outline: { type: 'array', length: 3 },
        head: ['id,name', '1,Ann'],
      },
    });
    expect(text.split('\n').slice(3)).toEqual([
      'Lines: 1204, about 30100 tokens',
      'Columns: id, name, +3 more',
      'Outline: {"type":"array","length":3}',
      `Resource: ${base.uri}`,
      'Head:',
      '  id,name',
      '  1,Ann',
    ]);
  });

  test('facts it has no line for are shown generically', () => {
    expect(summaryText({ ...base, facts: { duration: '3:20', codec: { name: 'mp3' } } })).toContain(
      'duration: 3:20\ncodec: {"name":"mp3"}',
    );
  });

  test('a template gives the first line; the standard lines follow', () => {
    const text = summaryText({
      ...base,
      metadata: { name: 'Sales Dashboard' },
      template:
        "Downloaded workbook '{name}' ({size_human}) as {filename}, {metadata.name}, {facts.pages} pages, {who}",
      facts: { pages: 12 },
      vars: { who: 'tableau' },
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      "Downloaded workbook 'Sales Dashboard' (142.4 KB) as download_workbook_ab12cd34ef56.pdf, Sales Dashboard, 12 pages, tableau",
    );
    expect(lines[1]).toBe(`File saved: ${base.path}`);
    expect(lines).toContain(`Resource: ${base.uri}`);
  });

  test('the template name falls back to the file name, and vars win', () => {
    expect(summaryText({ ...base, template: '{name}' }).split('\n')[0]).toBe('download_workbook_ab12cd34ef56.pdf');
    expect(
      summaryText({ ...base, template: '{name} {filename}', vars: { name: 'N', filename: 'report.pdf' } }).split(
        '\n',
      )[0],
    ).toBe('N report.pdf');
  });

  test('metadata is capped at about 500 characters, outlines at about 400', () => {
    const text = summaryText({
      ...base,
      metadata: { blob: 'x'.repeat(10_000) },
      facts: { outline: { keys: 'y'.repeat(10_000) } },
    });
    const metadata = text.split('\n').find((l) => l.startsWith('Metadata: '))!;
    const outline = text.split('\n').find((l) => l.startsWith('Outline: '))!;
    expect(metadata.length).toBeLessThanOrEqual('Metadata: '.length + 501);
    expect(outline.length).toBeLessThanOrEqual('Outline: '.length + 401);
  });

  test('never exceeds about 2 KB, keeps the essentials, and says what it left out', () => {
    const facts: Record<string, unknown> = { head: Array.from({ length: 5 }, () => 'h'.repeat(200)) };
    for (let i = 0; i < 40; i++) facts[`fact${i}`] = 'f'.repeat(150);
    const text = summaryText({
      ...base,
      template: 't'.repeat(5000),
      metadata: { blob: 'x'.repeat(10_000) },
      facts,
      downloadUrl: 'https://x/y',
    });
    expect(text.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS + 50);
    const lines = text.split('\n');
    expect(lines[0]).toHaveLength(501);
    expect(lines.slice(1, 4)).toEqual([
      `File saved: ${base.path}`,
      'Type: application/pdf',
      'Size: 145832 bytes (142.4 KB)',
    ]);
    expect(lines).toContain(`Resource: ${base.uri}`);
    expect(lines).toContain('Download: https://x/y');
    expect(lines.at(-1)).toMatch(/^\(\d+ more lines left out\)$/);
  });

  test('a template cannot inline a payload', () => {
    const payload = 'JVBERi0xLjQK'.repeat(50_000);
    const text = summaryText({ ...base, template: 'doc: {content}', vars: { content: payload } });
    expect(text.length).toBeLessThan(1000);
  });
});
