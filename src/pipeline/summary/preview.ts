/** The preview of a long text the size net stores: its start and its end, cut at line ends. */
import { countLines } from '../../artifacts/lines.js';

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
  const lines = countLines(omitted);
  const marker = `… [${lines} line${lines === 1 ? '' : 's'}, ${omitted.length} characters not shown] …`;
  return { preview: tail ? `${head}\n${marker}\n${tail}` : `${head}\n${marker}`, truncated: true };
}
