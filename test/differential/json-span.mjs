// Finds where a value sits in a JSON text, without parsing and re-serializing it: normalization replaces a few
// values (ids, tokens) in place and must leave every other byte of the message as it came.

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

function skipWhitespace(text, at) {
  while (at < text.length && WHITESPACE.has(text[at])) at++;
  return at;
}

/** The index just past the string starting at `at` (a `"`). */
function skipString(text, at) {
  for (at++; at < text.length; at++) {
    if (text[at] === '\\') at++;
    else if (text[at] === '"') return at + 1;
  }
  throw new Error('unterminated string');
}

/** The index just past the value starting at `at`. */
function skipValue(text, at) {
  if (text[at] === '"') return skipString(text, at);
  if (text[at] === '{' || text[at] === '[') {
    let depth = 0;
    while (at < text.length) {
      const c = text[at];
      if (c === '"') {
        at = skipString(text, at);
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      at++;
      if (depth === 0) return at;
    }
    throw new Error('unterminated object or array');
  }
  while (at < text.length && !WHITESPACE.has(text[at]) && !',}]'.includes(text[at])) at++;
  return at;
}

/** [start, end) of member `key`'s value in the object starting at `at` (a `{`), or undefined. */
function memberSpan(text, at, key) {
  at = skipWhitespace(text, at + 1);
  while (at < text.length && text[at] !== '}') {
    const keyEnd = skipString(text, at);
    const name = JSON.parse(text.slice(at, keyEnd));
    at = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1); // past the colon
    const end = skipValue(text, at);
    if (name === key) return [at, end];
    at = skipWhitespace(text, end);
    if (text[at] === ',') at = skipWhitespace(text, at + 1);
  }
  return undefined;
}

/**
 * [start, end) of the value at `path` (keys from the top-level object) in the JSON text starting at `from`, or
 * undefined when the text has no such value (or is not JSON).
 */
export function valueSpan(text, path, from = 0) {
  try {
    let span = [skipWhitespace(text, from), undefined];
    for (const key of path) {
      if (text[span[0]] !== '{') return undefined;
      span = memberSpan(text, span[0], key);
      if (!span) return undefined;
    }
    return span;
  } catch {
    return undefined;
  }
}
