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
