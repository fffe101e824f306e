import { stemmer } from 'stemmer';

/**
 * Words that say nothing about which tool a task needs ("please show me the ..."). Kept short on purpose: words
 * such as "new", "all" or "up" tell tools apart ("create" vs "list", "stays up").
 */
const STOP = new Set(
  (
    'a an and are as at be but by can could do does for from had has have how i if in into is it its my of on ' +
    'or our please should so some than that the their them then there these this those to us was we were what ' +
    "when where which while whom why will with would you your i’m i'm let lets let’s want need like just"
  ).split(' '),
);

/**
 * Splits identifiers as well as prose: "getFileContents", "get_file_contents" and "get-file-contents" alike. Only
 * a word that starts lower-case is a camelCase identifier: "JavaScript" and "GitHub" are words of prose.
 */
function words(text: string): string[] {
  return text
    .replace(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, (word) => word.replace(/([a-z0-9])([A-Z])/g, '$1 $2'))
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** The terms of a text as the index keeps them: split, lower-cased, stop words out, stemmed (Porter). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) if (!STOP.has(word)) out.push(stemmer(word));
  return out;
}
