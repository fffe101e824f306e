// Reads a normalized message back as a JSON value, to tell a difference of bytes (key order, spacing, number
// spelling, escapes) from a difference of values. Numbers are kept exact: 1, 1.0, 1e0 and 10e-1 are the same value,
// 9007199254740993 is not 9007199254740992 and 1e400 is not Infinity; -0 stays apart from 0 (the proxy must not turn
// one into the other). Strings are compared decoded ("\u00e9" is "é", "\/" is "/"). The placeholders normalization
// writes in place of a number id (<id-1>, bare) are values of their own, apart from the string "<id-1>", so that an
// id that turned from a string into a number still shows.

/** A JSON number: its text as written, and an exact canonical form (sign, digits, exponent) to compare. */
export class JsonNumber {
  constructor(source) {
    this.source = source;
    this.canonical = canonicalNumber(source);
  }
}

/** A placeholder of normalize.mjs where a value stands (`<id-1>`, not `"<id-1>"`). */
export class Placeholder {
  constructor(name) {
    this.name = name;
  }
}

/** `-?digits[.digits][e±digits]` as `[-]<digits without leading or trailing zeros>e<exponent>`; zero as 0 or -0. */
function canonicalNumber(source) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(source);
  const [, sign, whole, fraction = '', exponent = '0'] = m;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return `${sign}0`;
  let exp = BigInt(exponent) - BigInt(fraction.length);
  const trailing = /0*$/.exec(digits)[0].length;
  digits = digits.slice(0, digits.length - trailing);
  exp += BigInt(trailing);
  return `${sign}${digits}e${exp}`;
}

const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// A string's extent: JSON.parse then decodes it, and refuses what JSON does not (control characters, bad escapes).
const STRING = /"(?:[^"\\]|\\.)*"/y;
const PLACEHOLDER = /<[A-Za-z0-9_.-]+>/y;
const LITERAL = /true|false|null/y;

/**
 * Parses `text` (JSON, with normalize.mjs's bare placeholders) into { value, members }: objects as Maps (in the
 * order written; a repeated key keeps its last value, as JSON.parse does), arrays as arrays, numbers as JsonNumber,
 * placeholders as Placeholder. `members`: the top-level object's members as { key, start, end } of their value's
 * text. Throws on anything that is not one whole JSON value.
 */
export function parseJson(text) {
  let at = 0;
  const members = [];
  const fail = (what) => {
    throw new Error(`${what} at character ${at + 1}`);
  };
  const skip = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  const token = (re) => {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    at = re.lastIndex;
    return m[0];
  };
  const value = (depth) => {
    skip();
    const c = text[at];
    if (c === '{') {
      at++;
      const object = new Map();
      skip();
      if (text[at] === '}') {
        at++;
        return object;
      }
      for (;;) {
        skip();
        const key = token(STRING);
        if (key === undefined) fail('a key expected');
        skip();
        if (text[at] !== ':') fail('":" expected');
        at++;
        skip();
        const start = at;
        const member = value(depth + 1);
        if (depth === 0) members.push({ key: JSON.parse(key), start, end: at });
        object.set(JSON.parse(key), member);
        skip();
        if (text[at] === ',') at++;
        else if (text[at] === '}') {
          at++;
          return object;
        } else fail('"," or "}" expected');
      }
    }
    if (c === '[') {
      at++;
      const array = [];
      skip();
      if (text[at] === ']') {
        at++;
        return array;
      }
      for (;;) {
        array.push(value(depth + 1));
        skip();
        if (text[at] === ',') at++;
        else if (text[at] === ']') {
          at++;
          return array;
        } else fail('"," or "]" expected');
      }
    }
    const string = token(STRING);
    if (string !== undefined) return JSON.parse(string);
    const number = token(NUMBER);
    if (number !== undefined) return new JsonNumber(number);
    const literal = token(LITERAL);
    if (literal !== undefined) return JSON.parse(literal);
    const placeholder = token(PLACEHOLDER);
    if (placeholder !== undefined) return new Placeholder(placeholder);
    return fail('a value expected');
  };
  const result = value(0);
  skip();
  if (at !== text.length) fail('the end expected');
  return { value: result, members };
}

/** Whether two parsed values are the same JSON value (object members in any order). */
export function sameValue(a, b) {
  if (a instanceof JsonNumber || b instanceof JsonNumber) {
    return a instanceof JsonNumber && b instanceof JsonNumber && a.canonical === b.canonical;
  }
  if (a instanceof Placeholder || b instanceof Placeholder) {
    return a instanceof Placeholder && b instanceof Placeholder && a.name === b.name;
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    for (const [key, value] of a) if (!b.has(key) || !sameValue(value, b.get(key))) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  return a === b;
}

/** A value as compact JSON (numbers as written, placeholders bare), cut to `max` characters. */
export function showValue(value, max = 120) {
  const text = render(value);
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function render(value) {
  if (value instanceof JsonNumber) return value.source;
  if (value instanceof Placeholder) return value.name;
  if (value instanceof Map) return `{${[...value].map(([k, v]) => `${JSON.stringify(k)}:${render(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(render).join(',')}]`;
  return JSON.stringify(value);
}

/** A member's place in a path: `.name`, or `["io.modelcontextprotocol/serverInfo"]` when it is not a plain name. */
const step = (key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

/**
 * Where two values differ, as a list of { op, path, golden?, actual? }: `~` a value changed (also its type), `-` only
 * in the golden value, `+` only in the new one. A member or element on one side only is given leaf by leaf
 * (`- params._meta.progressToken`, not `- params._meta`), so that an allowance names exactly what may go. Paths start
 * from the message (`id`, `result.content[0].text`).
 */
export function diffValues(golden, actual, path = '') {
  const out = [];
  const at = (p) => (p.startsWith('.') ? p.slice(1) : p);
  const leaves = (op, value, p) => {
    if (value instanceof Map && value.size > 0) for (const [k, v] of value) leaves(op, v, `${p}${step(k)}`);
    else if (Array.isArray(value) && value.length > 0) value.forEach((v, i) => leaves(op, v, `${p}[${i}]`));
    else out.push(op === '-' ? { op, path: at(p), golden: value } : { op, path: at(p), actual: value });
  };
  const walk = (g, a, p) => {
    if (sameValue(g, a)) return;
    if (g instanceof Map && a instanceof Map) {
      for (const [k, v] of g) {
        if (a.has(k)) walk(v, a.get(k), `${p}${step(k)}`);
        else leaves('-', v, `${p}${step(k)}`);
      }
      for (const [k, v] of a) if (!g.has(k)) leaves('+', v, `${p}${step(k)}`);
      return;
    }
    if (Array.isArray(g) && Array.isArray(a)) {
      const common = Math.min(g.length, a.length);
      for (let i = 0; i < common; i++) walk(g[i], a[i], `${p}[${i}]`);
      for (let i = common; i < g.length; i++) leaves('-', g[i], `${p}[${i}]`);
      for (let i = common; i < a.length; i++) leaves('+', a[i], `${p}[${i}]`);
      return;
    }
    out.push({ op: '~', path: at(p) || '(the message)', golden: g, actual: a });
  };
  walk(golden, actual, path);
  return out;
}

/** One difference of diffValues as a line: `~ error.code: -32602 → -32601`, `- params._meta.progressToken: "…"`. */
export function showDifference(d) {
  if (d.op === '~') return `~ ${d.path}: ${showValue(d.golden, 80)} → ${showValue(d.actual, 80)}`;
  return `${d.op} ${d.path}: ${showValue(d.op === '-' ? d.golden : d.actual, 100)}`;
}

/**
 * Whether difference `d` is one that `pattern` allows: `"<op> <path>"`, the op (`~`, `-`, `+`) optional, the path
 * with `*` for any one name or index and `**` for any run of them (`params._meta.progressToken`, `- params.**`,
 * `~ result.content[*].text`). `~ <path> (string to number)` allows only a placeholder that was a string and is now
 * bare, the same placeholder (`"<id-1>"` → `<id-1>`: an id the proxy picks is a number now, and names the same
 * request).
 */
export function differenceMatches(pattern, d) {
  const m = /^([~+-])?\s*(\S+)(\s+\(string to number\))?$/.exec(pattern.trim());
  if (!m || (m[1] && m[1] !== d.op)) return false;
  if (m[3] && !(d.op === '~' && d.actual instanceof Placeholder && d.golden === d.actual.name)) return false;
  const source = m[2]
    .split(/(\*\*|\*)/)
    .map((part) => {
      if (part === '**') return '.*';
      if (part === '*') return '(?:[^.[\\]]+|"[^"]*")';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`).test(d.path);
}
