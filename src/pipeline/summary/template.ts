/**
 * Summary templates from the configuration: `Downloaded workbook '{name}' ({size_human})`. A template can
 * never inline a payload: every value is cut at 200 characters.
 */

import { isExactNumber, stringifyJson } from '../../wire/json.js';

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

/** A value as compact JSON, its numbers exact; something readable for what JSON cannot write. */
export function compactJson(v: unknown): string {
  try {
    return stringifyJson(v);
  } catch {
    return String(v); // a cycle or a BigInt: still something readable
  }
}

/** A value as template text: strings as they are, objects and arrays as compact JSON, cut at 200 characters. */
export function renderValue(v: unknown): string {
  const text =
    typeof v === 'string'
      ? v
      : isExactNumber(v)
        ? v.rawJSON
        : typeof v === 'object' && v !== null
          ? compactJson(v)
          : String(v);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/**
 * Replaces `{name}` and `{a.b.c}` with values from `vars`. A placeholder with no value (unknown, or
 * undefined) stays as written, so a typo shows in the output instead of vanishing; `{{` and `}}` are literal
 * braces; any other brace is literal too.
 */
export function renderTemplate(template: string, vars: Record<string, unknown>): string {
  // The text between braces is copied in runs, and the next `{` and `}` are each searched for once per position they
  // move past, so a template of many braces with nothing to replace stays linear.
  const parts: string[] = [];
  let copied = 0;
  let at = 0;
  let open = template.indexOf('{');
  let shut = template.indexOf('}');
  for (;;) {
    if (open !== -1 && open < at) open = template.indexOf('{', at);
    if (shut !== -1 && shut < at) shut = template.indexOf('}', at);
    const brace = open === -1 ? shut : shut === -1 ? open : Math.min(open, shut);
    if (brace === -1) break;
    const ch = template[brace];
    if (template[brace + 1] === ch) {
      parts.push(template.slice(copied, brace + 1));
      copied = at = brace + 2;
      continue;
    }
    if (ch === '{') {
      if (shut !== -1 && shut <= brace) shut = template.indexOf('}', brace + 1);
      const name = shut === -1 || shut - brace > MAX_NAME_CHARS ? '' : template.slice(brace + 1, shut);
      if (PLACEHOLDER.test(name)) {
        const value = lookup(vars, name);
        parts.push(template.slice(copied, brace), value === undefined ? `{${name}}` : renderValue(value));
        copied = at = shut + 1;
        continue;
      }
    }
    at = brace + 1;
  }
  parts.push(template.slice(copied));
  return parts.join('');
}
