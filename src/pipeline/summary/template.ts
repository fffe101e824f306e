/**
 * Summary templates from the configuration: `Downloaded workbook '{name}' ({size_human})`. A template can
 * never inline a payload: every value is cut at 200 characters.
 */

const MAX_VALUE_CHARS = 200;
const MAX_NAME_CHARS = 100;
const PLACEHOLDER = /^[A-Za-z_$][\w$-]*(?:\.[\w$-]+)*$/;

function lookup(vars: Record<string, unknown>, name: string): unknown {
  let at: unknown = vars;
  for (const part of name.split('.')) {
    // Own properties only: `{constructor}` or `{x.__proto__}` must not reach into prototypes.
    if (typeof at !== 'object' || at === null || !Object.prototype.hasOwnProperty.call(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

function compactJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v); // a cycle or a BigInt: still something readable
  }
}

/** A value as template text: strings as they are, objects and arrays as compact JSON, cut at 200 characters. */
export function renderValue(v: unknown): string {
  const text = typeof v === 'string' ? v : typeof v === 'object' && v !== null ? compactJson(v) : String(v);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/**
 * Replaces `{name}` and `{a.b.c}` with values from `vars`. A placeholder with no value (unknown, or
 * undefined) stays as written, so a typo shows in the output instead of vanishing; `{{` and `}}` are literal
 * braces; any other brace is literal too.
 */
export function renderTemplate(template: string, vars: Record<string, unknown>): string {
  let out = '';
  let i = 0;
  let close = -2; // the next `}` after a `{`, reused while ahead so many `{` with no `}` stay linear; -1 = none
  while (i < template.length) {
    const ch = template[i];
    if ((ch === '{' || ch === '}') && template[i + 1] === ch) {
      out += ch;
      i += 2;
      continue;
    }
    if (ch === '{') {
      if (close !== -1 && close <= i) close = template.indexOf('}', i + 1);
      const name = close === -1 || close - i > MAX_NAME_CHARS ? '' : template.slice(i + 1, close);
      if (PLACEHOLDER.test(name)) {
        const value = lookup(vars, name);
        out += value === undefined ? `{${name}}` : renderValue(value);
        i = close + 1;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}
