/**
 * Indentation mistakes in plain words. The YAML parser reports where its grammar broke, often at the end
 * of the line before the mistake and several times over ("Nested mappings are not allowed in compact
 * mappings", "Implicit keys need to be on a single line"); a person needs the line they have to fix and
 * what its indentation should match. This looks at the lines' indentation only, and answers nothing when
 * it cannot tell (the parser's own words are used then).
 */
export interface IndentationProblem {
  line: number;
  column: number;
  message: string;
}

interface Line {
  number: number;
  indent: number;
  text: string;
}

/**
 * A line whose indentation cannot be right, on the line of the parser's first error or the next (it
 * often points at the end of the line before). Lines before it parsed, so oddities there (a flow list or
 * a plain string continued on deeper lines) are not mistakes and are passed over.
 */
export function indentationProblem(source: string, errorLine: number): IndentationProblem | undefined {
  const lines = source.split(/\r?\n/);
  let found: IndentationProblem | undefined;
  const report = (problem: IndentationProblem): boolean => {
    if (problem.line < errorLine) return false;
    found = problem;
    return true;
  };
  /** Open block levels: the indentation of each mapping or list the current line may belong to. */
  const levels: Line[] = [];
  let previous: Line | undefined;
  let scalarIndent: number | undefined; // inside a block scalar (`key: |`): lines deeper than its key
  for (let i = 0; i < lines.length && i < errorLine + 1 && !found; i++) {
    const raw = lines[i]!;
    const tab = /^( *)\t/.exec(raw);
    if (tab && raw.trim() !== '' && scalarIndent === undefined) {
      report({
        line: i + 1,
        column: tab[1]!.length + 1,
        message: `line ${i + 1} is indented with a tab; YAML indents with spaces only`,
      });
      continue;
    }
    const content = raw.trimStart();
    if (content === '' || content.startsWith('#')) continue;
    const line: Line = { number: i + 1, indent: raw.length - content.length, text: content };
    if (scalarIndent !== undefined) {
      if (line.indent > scalarIndent) continue;
      scalarIndent = undefined;
    }
    if (!previous || line.indent === 0) {
      levels.length = 0;
    } else if (line.indent > previous.indent) {
      if (!opensBlock(previous.text)) {
        report({
          line: line.number,
          column: line.indent + 1,
          message:
            `line ${line.number} is indented ${spaces(line.indent)}, deeper than line ${previous.number} (${spaces(previous.indent)}), ` +
            `which already has its value: indent it like line ${previous.number} to make it a sibling`,
        });
      }
    } else {
      while (levels.length && levels[levels.length - 1]!.indent > line.indent) levels.pop();
      const level = levels[levels.length - 1];
      if (level && level.indent !== line.indent) {
        const deeper = levelAfter(lines, level);
        report({
          line: line.number,
          column: line.indent + 1,
          message:
            `line ${line.number} is indented ${spaces(line.indent)}, between line ${level.number} (${spaces(level.indent)})` +
            `${deeper ? ` and line ${deeper.number} (${spaces(deeper.indent)})` : ''}: indent it like the line it belongs with`,
        });
      }
      if (level) levels.pop();
    }
    levels.push(line);
    if (/:\s*[|>][+-]?\d*\s*(#.*)?$/.test(line.text)) scalarIndent = line.indent;
    // `- key: value` opens a mapping at the key's column.
    const item = /^(-\s+)(?=[^\s#])/.exec(line.text);
    if (item)
      levels.push({
        number: line.number,
        indent: line.indent + item[1]!.length,
        text: line.text.slice(item[1]!.length),
      });
    previous = item
      ? { number: line.number, indent: line.indent + item[1]!.length, text: line.text.slice(item[1]!.length) }
      : line;
  }
  return found;
}

/** `key:` with nothing after it (a comment at most), or a bare `-`: what may have deeper lines under it. */
function opensBlock(text: string): boolean {
  return /:\s*(#.*)?$/.test(text) || /^-\s*(#.*)?$/.test(text) || /:\s*[|>][+-]?\d*\s*(#.*)?$/.test(text);
}

/** The first line after `level` that is deeper than it: the other indentation in play. */
function levelAfter(lines: string[], level: Line): Line | undefined {
  for (let i = level.number; i < lines.length; i++) {
    const raw = lines[i]!;
    const content = raw.trimStart();
    if (content === '' || content.startsWith('#')) continue;
    const indent = raw.length - content.length;
    return indent > level.indent ? { number: i + 1, indent, text: content } : undefined;
  }
  return undefined;
}

function spaces(n: number): string {
  return n === 1 ? '1 space' : `${n} spaces`;
}
