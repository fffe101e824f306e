// What the context-economy group's servers work on: a project folder for server-filesystem, a SQLite database for
// dbhub, and a small web site on 127.0.0.1 for the browser servers. Everything is made afresh, deterministically
// (a seeded generator, no clock), so a direct run and a run through the proxy see the same bytes.
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

/** A small seeded generator (mulberry32): the same numbers on every run. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the quarterly figures for the northern region show revenue up on last year while costs held steady across ' +
  'most departments except logistics where fuel and freight rates rose sharply in the second half customers ' +
  'renewed at a higher rate than forecast and the new pricing tiers brought in larger accounts'
).split(' ');

/** `n` words of plausible prose, from the seeded generator `rnd`. */
export function prose(rnd, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    let word = WORDS[Math.floor(rnd() * WORDS.length)];
    if (i === 0 || out[i - 1]?.endsWith('.')) word = word[0].toUpperCase() + word.slice(1);
    out.push(rnd() < 0.08 || i === n - 1 ? `${word}.` : word);
  }
  return out.join(' ');
}

/** Noise of `width`×`height`×`channels` bytes, from the seeded generator: an incompressible, "photographic" area. */
function noise(width, height, channels, seed) {
  const rnd = random(seed);
  const out = Buffer.alloc(width * height * channels);
  for (let i = 0; i < out.length; i++) out[i] = Math.floor(rnd() * 256);
  return out;
}

/** A dashboard screenshot, 2560×1600 RGB: panels, a chart, labels, and a photo-like panel of noise (about 1.7 MB). */
async function dashboardPng() {
  const bars = Array.from(
    { length: 24 },
    (_, i) =>
      `<rect x="${120 + i * 44}" y="${900 - ((i * 37) % 500) - 100}" width="30" height="${((i * 37) % 500) + 100}" fill="#3b82f6"/>`,
  ).join('');
  const labels = Array.from(
    { length: 12 },
    (_, i) =>
      `<text x="1400" y="${160 + i * 56}" font-size="30" font-family="sans-serif">Region ${i + 1}: ${(i * 7919) % 1000} k</text>`,
  ).join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="2560" height="1600"><rect width="2560" height="1600" fill="#f8fafc"/>` +
    `<rect x="60" y="60" width="1200" height="900" fill="#fff" stroke="#cbd5e1"/>${bars}` +
    `<text x="100" y="120" font-size="44" font-family="sans-serif">Revenue by week</text>${labels}</svg>`;
  return sharp(Buffer.from(svg))
    .composite([{ input: noise(900, 560, 3, 7), raw: { width: 900, height: 560, channels: 3 }, left: 1400, top: 980 }])
    .png()
    .toBuffer();
}

/** A scanned A4 page at 300 dpi, 2480×3508 grayscale: lines of text. */
async function scanPng() {
  const rnd = random(11);
  const lines = Array.from(
    { length: 70 },
    (_, i) => `<text x="200" y="${300 + i * 44}" font-size="34" font-family="serif">${prose(rnd, 14)}</text>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2480" height="3508"><rect width="2480" height="3508" fill="#fff"/>${lines}</svg>`;
  return sharp(Buffer.from(svg)).grayscale().png().toBuffer();
}

/** A 64×64 icon. */
function iconPng() {
  return sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 37, g: 99, b: 235, alpha: 1 } } })
    .png()
    .toBuffer();
}

/** A small thumbnail, `size`×`size`, partly noise (a product photo's thumbnail: a few KB of PNG). */
function thumbnailPng(seed, size = 40) {
  return sharp(noise(size, size, 3, seed), { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
}

/** An export of orders as an API would dump it, pretty-printed, about `bytes` long (688 KB: the issue's file). */
function ordersJson(bytes) {
  const rnd = random(3);
  const orders = [];
  let length = 0;
  for (let id = 1; length < bytes - 400; id++) {
    const order = {
      id: `ord_${String(id).padStart(6, '0')}`,
      customer: { id: `cus_${Math.floor(rnd() * 5000)}`, name: `Customer ${Math.floor(rnd() * 5000)}` },
      status: ['paid', 'shipped', 'refunded', 'pending'][Math.floor(rnd() * 4)],
      total: Math.round(rnd() * 100_000) / 100,
      currency: 'EUR',
      items: Array.from({ length: 1 + Math.floor(rnd() * 3) }, (_, i) => ({
        sku: `SKU-${1000 + Math.floor(rnd() * 9000)}`,
        quantity: 1 + Math.floor(rnd() * 5),
        line: i + 1,
      })),
      note: prose(rnd, 6),
    };
    orders.push(order);
    length += JSON.stringify(order, null, 2).length + 6;
  }
  return JSON.stringify({ exportedAt: '2026-11-01T00:00:00Z', count: orders.length, orders }, null, 2);
}

/**
 * A project folder for server-filesystem: a README, a notes file, a 688 KB JSON export, three PNGs (an icon, a
 * dashboard screenshot, a scanned page) and a source tree of 12 folders of 15 files. Returns the file paths.
 */
export async function makeProject(root) {
  const rnd = random(1);
  const paths = {
    readme: join(root, 'README.md'),
    notes: join(root, 'notes.txt'),
    export: join(root, 'data', 'orders-export.json'),
    icon: join(root, 'images', 'icon.png'),
    dashboard: join(root, 'images', 'dashboard.png'),
    scan: join(root, 'images', 'scan.png'),
    src: join(root, 'src'),
  };
  for (const dir of ['data', 'images', 'src']) mkdirSync(join(root, dir), { recursive: true });
  const sections = ['Install', 'Usage', 'Configuration', 'Development'];
  writeFileSync(
    paths.readme,
    `# Orders service\n\n${prose(rnd, 60)}\n\n${sections.map((s) => `## ${s}\n\n${prose(rnd, 70)}\n`).join('\n')}`,
  );
  writeFileSync(paths.notes, 'Call the supplier about the freight rates on Monday.\n');
  writeFileSync(paths.export, ordersJson(688 * 1024));
  writeFileSync(paths.icon, await iconPng());
  writeFileSync(paths.dashboard, await dashboardPng());
  writeFileSync(paths.scan, await scanPng());
  for (let d = 0; d < 12; d++) {
    const dir = join(paths.src, `module-${String.fromCharCode(97 + d)}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 15; f++)
      writeFileSync(join(dir, `part-${f}.ts`), `// ${prose(rnd, 8)}\nexport const value${f} = ${f};\n`);
  }
  return paths;
}

/**
 * A shop's SQLite database (node:sqlite): 500 customers, 4000 orders, 40 products whose `thumbnail` column holds a
 * base64 PNG as text (as apps often keep small images) and whose `photo` column holds a PNG as a BLOB.
 */
export async function makeDatabase(file) {
  const { DatabaseSync } = await import('node:sqlite');
  const rnd = random(5);
  const db = new DatabaseSync(file);
  db.exec(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, country TEXT, created TEXT);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), status TEXT,
                         total REAL, currency TEXT, placed TEXT);
    CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, thumbnail TEXT, photo BLOB);
    CREATE INDEX orders_customer ON orders(customer_id);`);
  const countries = ['DE', 'FR', 'NL', 'SE', 'ES', 'IT', 'PL'];
  db.exec('BEGIN'); // one transaction: 4500 rows, one write to the disk
  const customer = db.prepare('INSERT INTO customers (name, email, country, created) VALUES (?, ?, ?, ?)');
  for (let i = 1; i <= 500; i++)
    customer.run(
      `Customer ${i}`,
      `customer${i}@example.com`,
      countries[i % countries.length],
      `2025-0${1 + (i % 9)}-1${i % 10}`,
    );
  const order = db.prepare('INSERT INTO orders (customer_id, status, total, currency, placed) VALUES (?, ?, ?, ?, ?)');
  for (let i = 1; i <= 4000; i++)
    order.run(
      1 + Math.floor(rnd() * 500),
      ['paid', 'shipped', 'refunded'][i % 3],
      Math.round(rnd() * 50_000) / 100,
      'EUR',
      `2026-0${1 + (i % 9)}-2${i % 10}`,
    );
  const product = db.prepare('INSERT INTO products (name, price, thumbnail, photo) VALUES (?, ?, ?, ?)');
  for (let i = 1; i <= 40; i++) {
    const thumb = await thumbnailPng(100 + i);
    product.run(`Product ${i}`, 10 + i, thumb.toString('base64'), await thumbnailPng(200 + i, 24));
  }
  db.exec('COMMIT');
  db.close();
}

/** An article page: a heading, paragraphs, a table, an inline chart; about 1280×3000 at a 1280 px wide viewport. */
function articlePage() {
  const rnd = random(9);
  const paragraphs = Array.from({ length: 24 }, () => `<p>${prose(rnd, 70)}</p>`).join('\n');
  const rows = Array.from(
    { length: 15 },
    (_, i) => `<tr><td>Region ${i + 1}</td><td>${(i * 7919) % 1000}</td><td>${(i * 104729) % 100}%</td></tr>`,
  ).join('');
  const bars = Array.from(
    { length: 12 },
    (_, i) =>
      `<rect x="${20 + i * 50}" y="${220 - ((i * 37) % 180)}" width="36" height="${(i * 37) % 180}" fill="#2563eb"/>`,
  ).join('');
  return (
    '<!doctype html><html><head><title>Quarterly report</title></head>' +
    '<body style="margin:0 auto;max-width:900px;padding:24px;font:17px/1.6 sans-serif">' +
    '<h1>Quarterly report: northern region</h1>' +
    `<svg width="640" height="240" role="img" aria-label="Revenue by month">${bars}</svg>` +
    `${paragraphs.slice(0, paragraphs.length / 2)}` +
    `<table border="1" cellpadding="6"><tr><th>Region</th><th>Revenue (k)</th><th>Growth</th></tr>${rows}</table>` +
    `${paragraphs.slice(paragraphs.length / 2)}<p><a href="/article">Permalink</a></p></body></html>`
  );
}

/**
 * A page `height` px tall: `dense` lines of text all the way down (a long log or report), `sparse` a line every
 * 400 px (as test/integration/tall-screenshots.test.ts: chrome-devtools-mcp sends a screenshot over about 2 MB as
 * a file path instead of an image).
 */
function tallPage(kind, height) {
  const every = kind === 'sparse' ? 400 : 24;
  const lines = Array.from(
    { length: Math.floor((height - 72) / every) },
    (_, n) =>
      `<p style="margin:0;height:${every}px">Line ${n + 1}: quarterly figures for the northern region, all in thousands.</p>`,
  );
  return (
    '<!doctype html><body style="margin:0;font:16px/24px sans-serif">' +
    '<h1 style="margin:0;height:72px;line-height:72px">Quarterly report</h1>' +
    `<div style="height:${height - 72}px;overflow:hidden">${lines.join('')}</div></body>`
  );
}

/** The site on 127.0.0.1 (a free port): /article, /dense/<height>, /sparse/<height>. Resolves with { base, close }. */
export async function startSite() {
  const article = articlePage();
  const server = http.createServer((req, res) => {
    const [, kind = '', height = '100'] = (req.url ?? '').split('/');
    const body = kind === 'dense' || kind === 'sparse' ? tallPage(kind, Number(height)) : article;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
