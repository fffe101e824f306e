// Scenario group "adversarial": inputs built to make a scanner super-linear (unclosed template braces,
// thousands of `data:` with no comma, SVG prologs that never close), each at a size n and at 8n. A
// linear scanner takes about 8 times as long at 8n; a quadratic one 64 times. Measured here rather than
// asserted in tests: timings depend on the machine, the growth does not.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { median } from '../lib/stats.mjs';
import * as fmt from '../lib/format.mjs';

const GROWTH = 8;
const REPEATS = 7;

const load = (root, file) => import(pathToFileURL(join(root, 'dist', file)).href);

function cases({ renderTemplate }, { findDataUris }, { looksLikeSvg }) {
  return [
    {
      input: 'template, unclosed "{"',
      make: (n) => '{'.repeat(n),
      run: (s) => renderTemplate(s, { a: 1 }),
      n: 100_000,
    },
    {
      input: 'template, unclosed "{a"',
      make: (n) => '{a'.repeat(n),
      run: (s) => renderTemplate(s, { a: 1 }),
      n: 200_000,
    },
    {
      input: 'data URIs, "data:" without a comma',
      make: (n) => 'data:'.repeat(n),
      run: (s) => findDataUris(s, 1),
      n: 100_000,
    },
    {
      input: 'data URIs, the comma far away',
      make: (n) => `${'data:image/png;'.repeat(n)}${'a'.repeat(n / 5)},`,
      run: (s) => findDataUris(s, 1),
      n: 25_000,
    },
    {
      input: 'SVG sniffing, comments that never end',
      make: (n) => Buffer.from('<!-- -->'.repeat(n)),
      run: looksLikeSvg,
      n: 512,
    },
    { input: 'SVG sniffing, "<?" repeated', make: (n) => Buffer.from('<?'.repeat(n)), run: looksLikeSvg, n: 2000 },
  ];
}

function time(run, input) {
  const samples = [];
  for (let i = 0; i < REPEATS; i++) {
    const started = process.hrtime.bigint();
    run(input);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}

export default {
  name: 'adversarial',
  title: 'Adversarial inputs: cost as the input grows',
  method: `Each input built at a size n and at ${GROWTH}n, run ${REPEATS} times in this process; median wall time. **growth**: time at
${GROWTH}n ÷ time at n (linear ≈ ${GROWTH}, quadratic ≈ ${GROWTH * GROWTH}). Inputs too short to time well show noise, not growth.`,
  columns: [
    { key: 'input', label: 'input', align: 'left' },
    { key: 'chars', label: 'size n' },
    { key: 'small', label: 'time at n', format: fmt.latency },
    { key: 'large', label: `time at ${GROWTH}n`, format: fmt.latency },
    { key: 'growth', label: 'growth', format: (v) => `×${v.toFixed(1)}` },
  ],
  async run(ctx) {
    const modules = await Promise.all(
      ['pipeline/summary/template.js', 'pipeline/detect/data-uri.js', 'artifacts/mime.js'].map((f) =>
        load(ctx.root, f),
      ),
    );
    const rows = [];
    for (const c of cases(...modules)) {
      const small = c.make(c.n);
      const large = c.make(c.n * GROWTH);
      c.run(small); // warm up
      const [a, b] = [time(c.run, small), time(c.run, large)];
      rows.push({ input: c.input, chars: small.length, small: a, large: b, growth: b / Math.max(a, 1e-3) });
      ctx.log(`  adversarial ${c.input}: ${fmt.latency(a)} → ${fmt.latency(b)}`);
    }
    return rows;
  },
  summary: (rows) => [
    {
      goal: `Scanners stay linear on adversarial input (time at ${GROWTH}n under ${GROWTH * 3}× time at n)`,
      measured: rows.map((r) => `${r.input} ×${r.growth.toFixed(1)}`).join('; '),
      met: rows.every((r) => r.growth < GROWTH * 3),
    },
  ],
};
