/**
 * A PDF's page count as its page tree states it (`/Pages /Count`), read by pdf.js (Mozilla's parser):
 * right for compressed object streams, where counting page objects in the bytes finds none. pdf.js reads
 * only what the count needs, but wants the whole file in memory, so it is asked only when the byte scan
 * (pdf.ts) has no count and the file has object streams, and never for files over `MAX_PARSED_BYTES`.
 * Loaded on first use: most results hold no PDF.
 */
export const MAX_PARSED_BYTES = 64 * 1024 * 1024;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;

/** The page count, or undefined when the file is not a PDF pdf.js can open (damaged, password-protected). */
export async function pdfPageCount(bytes: Uint8Array): Promise<number | undefined> {
  if (bytes.length > MAX_PARSED_BYTES) return undefined;
  try {
    const { getDocument } = await (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));
    // A copy: pdf.js hands its buffer to its worker, which detaches it.
    const task = getDocument({
      data: new Uint8Array(bytes),
      verbosity: 0,
      isEvalSupported: false,
      disableFontFace: true,
    });
    try {
      return (await task.promise).numPages;
    } finally {
      await task.destroy();
    }
  } catch {
    return undefined;
  }
}
