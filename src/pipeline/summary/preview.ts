/**
 * The start of a long text, for a summary or a truncated result: cut at a line end when one is near the
 * limit, so the model does not see half a line, and marked so it knows more exists.
 */

import { countLines } from '../../artifacts/lines.js';

// A line end in the last 20% of the allowance is "near"; further back we would throw away too much.
const NEAR_FRACTION = 0.2;

/**
 * At most `maxChars` of `text` (never splitting a surrogate pair), followed by `… [N more characters]` when
 * anything was left out. The marker is not counted in `maxChars`.
 */
export function previewText(text: string, maxChars: number): { preview: string; truncated: boolean } {
  const limit = Math.max(0, Math.floor(maxChars));
  if (text.length <= limit) return { preview: text, truncated: false };

  let cut = limit;
  const lineEnd = text.lastIndexOf('\n', limit);
  const nearLineEnd = lineEnd > 0 && lineEnd >= limit - Math.ceil(limit * NEAR_FRACTION);
  if (nearLineEnd) {
    cut = text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
  } else if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) {
    cut--;
  }
  const kept = text.slice(0, cut);
  const more = text.length - cut;
  const marker = `… [${more} more character${more === 1 ? '' : 's'}]`;
  return { preview: nearLineEnd ? `${kept}\n${marker}` : `${kept}${marker}`, truncated: true };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * A long text's start and end, each cut at line ends, with what lies between counted in lines and
 * characters: the first lines say what the text is, the last ones where it stops (a log's last errors,
 * a file's closing part). No line is shown twice; a text that fits is shown whole.
 */
export function headAndTail(text: string, maxChars: number): { preview: string; truncated: boolean } {
  const limit = Math.max(0, Math.floor(maxChars));
  if (text.length <= limit) return { preview: text, truncated: false };
  const headChars = Math.ceil((limit * 2) / 3);
  let headEnd = text.lastIndexOf('\n', headChars);
  if (headEnd <= 0) headEnd = Math.min(headChars, text.length);
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  // The tail starts at a line start, so it holds whole lines only.
  let tailStart = text.indexOf('\n', text.length - (limit - headChars));
  tailStart = tailStart === -1 ? text.length : tailStart + 1;
  if (tailStart <= headEnd) tailStart = text.length;
  const head = text.slice(0, headEnd).replace(/\r$/, '');
  const tail = text.slice(tailStart);
  const omitted = text.slice(text[headEnd] === '\n' ? headEnd + 1 : headEnd, tailStart);
  const lines = countLines(Buffer.from(omitted));
  const marker = `… [${lines} line${lines === 1 ? '' : 's'}, ${omitted.length} characters not shown] …`;
  return { preview: tail ? `${head}\n${marker}\n${tail}` : `${head}\n${marker}`, truncated: true };
}
