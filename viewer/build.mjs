#!/usr/bin/env node
// Builds the artifact viewer (an MCP App) into one self-contained page, dist/viewer/artifact-viewer.html, which the
// proxy serves as ui://mcp-offload/artifact-viewer (src/artifacts/viewer-html.ts). A view may load nothing from the
// network (the host's default policy for views: no connect-src, scripts and styles from the page itself), so
// everything is inlined: the view's code with @modelcontextprotocol/ext-apps and jsonpath-plus, bundled by esbuild,
// and pdf.js with its worker, bundled apart and kept gzipped (base64) until the view shows a PDF.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const OUT = here('../dist/viewer/artifact-viewer.html');

const common = {
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome111', 'firefox113', 'safari16.4'],
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
};

/** One script, ready to be inlined: nothing in it may end the script element or open an HTML comment. */
async function bundle(entry, options = {}) {
  const result = await build({ ...common, entryPoints: [here(entry)], ...options });
  const code = result.outputFiles[0].text;
  if (/<\/script|<!--/i.test(code)) throw new Error(`${entry}: the bundle holds "</script" or "<!--"`);
  return code;
}

const [page, app, engine] = await Promise.all([
  readFile(here('src/index.html'), 'utf8'),
  bundle('src/main.ts'),
  bundle('src/pdf-engine.ts', { globalName: 'mcpOffloadPdf' }),
]);
const html = page
  .replace('/*VIEWER_APP*/', () => app)
  .replace('/*PDF_ENGINE*/', () => gzipSync(engine, { level: 9 }).toString('base64'));
if (html.includes('/*VIEWER_APP*/') || html.includes('/*PDF_ENGINE*/')) throw new Error('a placeholder was left');
await mkdir(here('../dist/viewer'), { recursive: true });
await writeFile(OUT, html);
const kb = (text) => `${(Buffer.byteLength(text) / 1024).toFixed(0)} KB`;
process.stderr.write(`viewer: ${OUT} ${kb(html)} (view ${kb(app)}, pdf.js ${kb(engine)} before gzip)\n`);
