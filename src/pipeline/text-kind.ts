import { parseJsonText } from './json-docs.js';

/** The MIME type a stored text is saved as: JSON, CSV, markdown or plain text, by its content. */
export function textMimeType(text: string): string {
  if (parseJsonText(text) !== undefined) return 'application/json';
  if (looksLikeCsv(text)) return 'text/csv';
  if (looksLikeMarkdown(text)) return 'text/markdown';
  return 'text/plain';
}

function looksLikeCsv(text: string): boolean {
  const lines = text
    .slice(0, 20_000)
    .split('\n', 12)
    .filter((l) => l.trim())
    .slice(0, 10);
  if (lines.length < 3) return false;
  const commas = lines.map((l) => (l.match(/,/g) ?? []).length);
  return commas[0] > 0 && commas.every((n) => n === commas[0]);
}

function looksLikeMarkdown(text: string): boolean {
  const head = text.slice(0, 20_000);
  return (
    /^#{1,6} \S/m.test(head) || /^```/m.test(head) || /^\s*[-*] \[[ x]\] /m.test(head) || /\]\(https?:\/\//.test(head)
  );
}

/** Characters looked at to tell a text to read from a dump. */
const SAMPLE_CHARS = 64 * 1024;
/** Prose has about one space in six characters, indented code more; base64 almost none. */
const MIN_WHITESPACE = 0.05;
/** A paragraph of prose on one line rarely passes this; minified code and one-line JSON run far over it. */
const MAX_AVERAGE_LINE = 1000;

/**
 * Whether a text is one a model reads and works with (code, prose, data laid out in lines), as against a
 * dump it cannot use inline: base64, minified code, a JSON document written on one line. Told from a
 * sample of its start by its share of whitespace and the length of its lines.
 */
export function isForReading(text: string): boolean {
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  if (sample.length === 0) return true;
  let whitespace = 0;
  let lines = 1;
  for (let i = 0; i < sample.length; i++) {
    const code = sample.charCodeAt(i);
    if (code === 0x0a) lines++;
    if (code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d) whitespace++;
  }
  return whitespace / sample.length >= MIN_WHITESPACE && sample.length / lines <= MAX_AVERAGE_LINE;
}
