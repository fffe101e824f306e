/**
 * A PDF's page count without a PDF parser. Counting `/Type /Page` objects works when page objects are
 * stored plainly (most generators, and every PDF before 1.5); when they sit in compressed object streams the
 * count is 0, and a linearized file's `/N` is used instead; otherwise no count is given rather than a
 * wrong one. Only the first 50 MB are scanned.
 */

const MAX_SCAN_BYTES = 50 * 1024 * 1024;
const TYPE = Buffer.from('/Type', 'latin1');
const PAGE = Buffer.from('/Page', 'latin1');
// The linearization dictionary is the first object of a linearized file and holds the page count as /N.
const LINEARIZED_PAGES = /\/Linearized\s[^>]{0,200}?\/N\s+(\d+)/;

export function pdfFacts(bytes: Buffer): { pages?: number } {
  const pages = countPageObjects(bytes.subarray(0, MAX_SCAN_BYTES));
  if (pages > 0) return { pages };
  const linearized = LINEARIZED_PAGES.exec(bytes.toString('latin1', 0, Math.min(2048, bytes.length)));
  if (linearized) return { pages: Number(linearized[1]) };
  return {};
}

/**
 * Matches of `/Type\s*\/Page(?![a-zA-Z])` in the bytes read as latin1, found by the buffer's own
 * search for `/Type` rather than a regular expression over a string of the whole file.
 */
function countPageObjects(bytes: Buffer): number {
  let pages = 0;
  for (let at = bytes.indexOf(TYPE); at !== -1; at = bytes.indexOf(TYPE, at + 1)) {
    let next = at + TYPE.length;
    while (next < bytes.length && isLatin1Space(bytes[next])) next++;
    if (next + PAGE.length > bytes.length || bytes.compare(PAGE, 0, PAGE.length, next, next + PAGE.length) !== 0) continue;
    const after = next + PAGE.length;
    if (after < bytes.length && isLetter(bytes[after])) continue;
    pages++;
  }
  return pages;
}

/** What `\s` matches among latin1 characters. */
function isLatin1Space(byte: number): boolean {
  return (byte >= 0x09 && byte <= 0x0d) || byte === 0x20 || byte === 0xa0;
}

function isLetter(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}
