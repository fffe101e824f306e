import fc from 'fast-check';
import { renderTemplate, renderValue } from '../../src/pipeline/summary/template.js';

/**
 * The rules of renderTemplate written the plain way, one character at a time (its first implementation): the
 * property below holds the run-copying one to it.
 */
function renderOneByOne(template: string, vars: Record<string, unknown>): string {
  let out = '';
  for (let i = 0; i < template.length;) {
    const ch = template[i]!;
    if ((ch === '{' || ch === '}') && template[i + 1] === ch) {
      out += ch;
      i += 2;
      continue;
    }
    if (ch === '{') {
      const close = template.indexOf('}', i + 1);
      const name = close === -1 || close - i > 100 ? '' : template.slice(i + 1, close);
      if (/^[A-Za-z_$][\w$-]*(?:\.[\w$-]+)*$/.test(name)) {
        const value = name
          .split('.')
          .reduce<unknown>(
            (at, part) =>
              typeof at === 'object' && at !== null && Object.prototype.hasOwnProperty.call(at, part)
                ? (at as Record<string, unknown>)[part]
                : undefined,
            vars,
          );
        out += value === undefined ? `{${name}}` : renderValue(value);
        i = close + 1;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}

describe('renderTemplate', () => {
  const vars = {
    name: 'Sales Dashboard',
    size_human: '142.4 KB',
    size: 145832,
    result: { name: 'Q3', tags: ['a', 'b'] },
    metadata: { pageCount: 12, nested: { deep: true } },
    empty: '',
    zero: 0,
    nothing: null,
    missing: undefined,
  };

  test('replaces simple and nested placeholders', () => {
    expect(renderTemplate("Downloaded workbook '{name}' ({size_human})", vars)).toBe(
      "Downloaded workbook 'Sales Dashboard' (142.4 KB)",
    );
    expect(renderTemplate('{result.name}: {metadata.pageCount} pages', vars)).toBe('Q3: 12 pages');
    expect(renderTemplate('{result.tags.1}', vars)).toBe('b');
  });

  test('renders numbers, empty strings, zero and null', () => {
    expect(renderTemplate('[{size}] [{empty}] [{zero}] [{nothing}]', vars)).toBe('[145832] [] [0] [null]');
  });

  test('renders objects and arrays as compact JSON', () => {
    expect(renderTemplate('{metadata}', vars)).toBe('{"pageCount":12,"nested":{"deep":true}}');
    expect(renderTemplate('{result.tags}', vars)).toBe('["a","b"]');
  });

  test('leaves unknown and undefined placeholders as written', () => {
    expect(renderTemplate('{nope} {result.nope} {name.length} {missing}', vars)).toBe(
      '{nope} {result.nope} {name.length} {missing}',
    );
  });

  test('does not reach into prototypes', () => {
    expect(renderTemplate('{constructor} {toString} {result.__proto__}', vars)).toBe(
      '{constructor} {toString} {result.__proto__}',
    );
  });

  test('{{ and }} are literal braces', () => {
    expect(renderTemplate('{{name}} is {name}', vars)).toBe('{name} is Sales Dashboard');
    expect(renderTemplate('{{{name}}}', vars)).toBe('{Sales Dashboard}');
    expect(renderTemplate('a }} b {{ c', vars)).toBe('a } b { c');
  });

  test('other braces are literal', () => {
    expect(renderTemplate('{ name } {} {not a name} { {name', vars)).toBe('{ name } {} {not a name} { {name');
    expect(renderTemplate('function() { return 1; }', vars)).toBe('function() { return 1; }');
    expect(renderTemplate('} {', vars)).toBe('} {');
  });

  test('cuts every value at 200 characters, so a payload can never be inlined', () => {
    const payload = 'JVBERi0xLjQK'.repeat(100_000);
    const out = renderTemplate('before {content} after {doc}', { content: payload, doc: { content: payload } });
    expect(out).toBe(`before ${payload.slice(0, 200)}… after ${JSON.stringify({ content: payload }).slice(0, 200)}…`);
  });

  test('survives values that JSON cannot render', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(renderTemplate('{c} {b}', { c: cyclic, b: 10n })).toBe('[object Object] 10');
  });

  test('leaves many unclosed braces as they are (their cost as they grow: npm run bench, group adversarial)', () => {
    expect(renderTemplate('{'.repeat(200_000), vars)).toBe('{'.repeat(100_000)); // '{{' is a literal '{'
    expect(renderTemplate('{a'.repeat(100_000), vars)).toBe('{a'.repeat(100_000));
  });

  test('renders every template as the one-character-at-a-time rules do', () => {
    const piece = fc.constantFrom('{', '}', '{{', '}}', 'name', 'result.name', 'a', '.', ' ', 'x-y', 'zero', '$');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const template = pieces.join('');
        expect(renderTemplate(template, vars)).toBe(renderOneByOne(template, vars));
      }),
      { numRuns: 2000 },
    );
  });
});
