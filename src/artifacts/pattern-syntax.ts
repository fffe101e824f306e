/**
 * What of a JavaScript regular expression `artifact_read`'s engine cannot run. Patterns run on RE2's syntax
 * (re2js), which matches in time linear in the text; backreferences and lookaround have no linear-time algorithm, so
 * RE2 leaves them out. RE2's own errors name them obscurely (a lookbehind is an "invalid named capture"), so a pattern
 * is looked at first and the construct named in plain words.
 */
export function unsupportedConstruct(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next)) return `a backreference (\\${next})`;
      if (next === 'k' && pattern[i + 2] === '<') return 'a named backreference (\\k<name>)';
      i++; // the escaped character is a literal, whatever it is
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++; // a ']' first in a class is one of its characters
    } else if (c === '(' && pattern[i + 1] === '?') {
      const kind = LOOKAROUND.find(([opening]) => pattern.startsWith(opening, i));
      if (kind) return `a ${kind[1]} (${kind[0]}…)`;
    }
  }
  return undefined;
}

const LOOKAROUND: Array<[string, string]> = [
  ['(?=', 'lookahead'],
  ['(?!', 'negative lookahead'],
  ['(?<=', 'lookbehind'],
  ['(?<!', 'negative lookbehind'],
];
