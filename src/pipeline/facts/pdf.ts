/**
 * A PDF's page count without a PDF parser. Counting `/Type /Page` objects works when page objects are
 * stored plainly (most generators, and every PDF before 1.5); when they sit in compressed object streams the
 * count is 0, and a linearized file's `/N` is used instead; otherwise no count is given rather than a
 * wrong one. Only the first 50 MB are scanned.
 */

const MAX_SCAN_BYTES = 50 * 1024 * 1024;
const PAGE_OBJECT = /\/Type\s*\/Page(?![a-zA-Z])/g;
// The linearization dictionary is the first object of a linearized file and holds the page count as /N.
const LINEARIZED_PAGES = /\/Linearized\s[^>]{0,200}?\/N\s+(\d+)/;

export function pdfFacts(bytes: Buffer): { pages?: number } {
  const text = bytes.subarray(0, MAX_SCAN_BYTES).toString('latin1');
  let pages = 0;
  PAGE_OBJECT.lastIndex = 0;
  while (PAGE_OBJECT.exec(text) !== null) pages++;
  if (pages > 0) return { pages };
  const linearized = LINEARIZED_PAGES.exec(text.slice(0, 2048));
  if (linearized) return { pages: Number(linearized[1]) };
  return {};
}
