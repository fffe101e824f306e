/**
 * `${VAR}` / `${VAR:-default}` substitution in string values. `$$` is a literal `$`; a `$` not
 * followed by `{` or `$` is kept as is, so `$HOME` is NOT expanded (only the braced form is).
 */

export interface Expansion {
  value: string;
  /** Plain-words problems; empty when the expansion succeeded. */
  problems: string[];
}

const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

export function expandEnv(input: string, env: NodeJS.ProcessEnv): Expansion {
  if (!input.includes('$')) return { value: input, problems: [] };
  const problems: string[] = [];
  let out = '';
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c !== '$') {
      out += c;
      i += 1;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (next !== '{') {
      out += '$';
      i += 1;
      continue;
    }
    const close = input.indexOf('}', i + 2);
    if (close < 0) {
      problems.push(`unclosed "\${" in ${JSON.stringify(input)} (write "$$" for a literal "$")`);
      out += input.slice(i);
      break;
    }
    const reference = input.slice(i + 2, close);
    out += resolve(reference, env, problems);
    i = close + 1;
  }
  return { value: out, problems };
}

function resolve(reference: string, env: NodeJS.ProcessEnv, problems: string[]): string {
  const match = REFERENCE.exec(reference);
  if (!match) {
    problems.push(
      `cannot substitute "\${${reference}}": write \${NAME} or \${NAME:-default}, or "$$" for a literal "$"`,
    );
    return '';
  }
  const name = match[1]!;
  const fallback = match[2];
  if (fallback !== undefined && fallback.includes('${')) {
    problems.push(`a default cannot contain another substitution: "\${${reference}}"`);
    return '';
  }
  const value = env[name];
  // Like the shell's `:-`, a default also replaces a variable that is set but empty.
  if (fallback !== undefined && (value === undefined || value === '')) return fallback;
  if (value === undefined) {
    problems.push(`missing environment variable ${name} (use \${${name}:-default} to give a default)`);
    return '';
  }
  return value;
}
