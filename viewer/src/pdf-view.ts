import type { PDFDocumentProxy } from 'pdfjs-dist';
import type * as Engine from './pdf-engine.js';
import { button, el, status } from './dom.js';

/** Pages drawn at first; the rest on request. */
const FIRST_PAGES = 10;

/** The global the engine's bundle sets (viewer/build.mjs: an IIFE named so). */
declare global {
  var mcpOffloadPdf: typeof Engine | undefined;
}

let engine: Promise<typeof Engine> | undefined;

/**
 * pdf.js, unpacked on first use: the page carries it gzipped and base64-encoded in a script element of a type the
 * browser does not run; it is decompressed and run as an inline script (allowed by the host's default policy,
 * `script-src 'unsafe-inline'`), which sets `globalThis.mcpOffloadPdf`. Nothing is fetched.
 */
function loadEngine(): Promise<typeof Engine> {
  engine ??= (async () => {
    const packed = document.getElementById('pdf-engine')?.textContent?.trim();
    if (!packed) throw new Error('this page carries no PDF engine');
    const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    const code = await new Response(stream).text();
    const script = document.createElement('script');
    script.textContent = code;
    document.head.append(script);
    if (!globalThis.mcpOffloadPdf) throw new Error('the PDF engine did not start');
    return globalThis.mcpOffloadPdf;
  })();
  return engine;
}

/** PDF pages drawn on canvases (pdf.js), with zoom; the first pages at once, more on request. */
export function pdfView(bytes: Uint8Array): HTMLElement {
  const pages = el('div', { class: 'pdf-pages' });
  const info = el('span', { class: 'pdf-info' }, 'Loading the PDF…');
  const more = el('div', { class: 'pdf-more' });
  let pdf: PDFDocumentProxy | undefined;
  let scale = 1.25;
  let drawn = 0;
  /** Bumped by a zoom: a drawing of the pages at the old scale stops where it is. */
  let round = 0;

  const draw = async (upTo: number) => {
    if (!pdf) return;
    const mine = round;
    for (let n = drawn + 1; n <= Math.min(upTo, pdf.numPages); n++) {
      const page = await pdf.getPage(n);
      if (mine !== round) return;
      const viewport = page.getViewport({ scale: scale * devicePixelRatio });
      const canvas = el('canvas', { class: 'pdf-page', 'data-page': String(n) });
      canvas.width = Math.ceil(viewport.width);
      canvas.height = Math.ceil(viewport.height);
      canvas.style.width = `${Math.ceil(viewport.width / devicePixelRatio)}px`;
      pages.append(canvas);
      await page.render({ canvas, viewport }).promise;
      if (mine !== round) return;
      canvas.dataset.rendered = 'true';
      drawn = n;
    }
    more.replaceChildren();
    if (drawn < pdf.numPages)
      more.append(
        button(`Show ${pdf.numPages - drawn} more page(s)`, 'Draw the remaining pages', () => void draw(pdf!.numPages)),
      );
  };
  const redraw = (next: number) => {
    scale = next;
    round++;
    const upTo = Math.max(drawn, Math.min(FIRST_PAGES, pdf?.numPages ?? 0));
    drawn = 0;
    pages.replaceChildren();
    void draw(upTo);
  };

  void (async () => {
    try {
      const { getDocument } = await loadEngine();
      // No URL for fonts, color maps or wasm decoders: pdf.js falls back to what it has and fetches nothing.
      // verbosity 0: errors only (pdf.js warns that its worker runs on this thread, as it is meant to here).
      pdf = await getDocument({
        data: bytes,
        isEvalSupported: false,
        useSystemFonts: true,
        disableAutoFetch: true,
        verbosity: 0,
      }).promise;
      info.textContent = `${pdf.numPages} page${pdf.numPages === 1 ? '' : 's'}`;
      await draw(FIRST_PAGES);
    } catch (error) {
      info.replaceChildren(status(`The PDF could not be shown: ${(error as Error).message}`, 'error'));
    }
  })();
  const toolbar = el(
    'div',
    { class: 'toolbar' },
    button('−', 'Zoom out', () => redraw(Math.max(0.5, scale / 1.25))),
    button('+', 'Zoom in', () => redraw(Math.min(4, scale * 1.25))),
    info,
  );
  return el('section', { class: 'view pdf-view' }, toolbar, pages, more);
}
