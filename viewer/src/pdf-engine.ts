// pdf.js for the viewer, bundled apart (viewer/build.mjs) and kept gzipped in the page until a PDF is shown. Its
// worker runs on the page's own thread (pdf.js's "fake worker", found at globalThis.pdfjsWorker): a view may start
// no worker from a blob: URL or fetch a worker script under the host's default policy.
import * as worker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;

export { getDocument };
