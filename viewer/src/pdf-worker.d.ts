/** pdf.js's worker module ships without types; the viewer only hands it to pdf.js (pdf-engine.ts). */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs';
