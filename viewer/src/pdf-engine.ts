// pdf.js for the viewer, bundled apart (viewer/build.mjs) and kept gzipped in the page until a PDF is shown. Its
// worker runs on the page's own thread, pdf.js's "fake worker": the worker module, imported here for that, sets
// globalThis.pdfjsWorker, where pdf.js finds it. A view may neither start a worker from a blob: URL nor fetch a
// worker script under the host's default policy.
import 'pdfjs-dist/legacy/build/pdf.worker.mjs';

export { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
