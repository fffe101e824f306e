// Tables as aligned plain text (for the terminal) and as GitHub-flavored markdown.
//
// columns: [{ key, label, align?: 'left' | 'right', format?(value, row) => string }]
// rows:    plain objects; a column's cell is format(row[key], row), else String(row[key]).

function cells(columns, rows) {
  return rows.map((row) =>
    columns.map((c) => {
      const v = row[c.key];
      const s = c.format ? c.format(v, row) : v === undefined || v === null ? '—' : String(v);
      return String(s);
    }),
  );
}

function alignOf(column) {
  return column.align ?? 'right';
}

/** Aligned plain text, with a rule under the header. */
export function textTable(columns, rows) {
  const body = cells(columns, rows);
  const header = columns.map((c) => c.label);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r) =>
    r
      .map((s, i) => (alignOf(columns[i]) === 'left' ? s.padEnd(widths[i]) : s.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** A markdown table; pipes in cells are escaped. */
export function markdownTable(columns, rows) {
  const esc = (s) => s.replace(/\|/g, '\\|');
  const body = cells(columns, rows);
  const header = `| ${columns.map((c) => esc(c.label)).join(' | ')} |`;
  const rule = `| ${columns.map((c) => (alignOf(c) === 'left' ? ':--' : '--:')).join(' | ')} |`;
  return [header, rule, ...body.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

/** Columns from the keys of the rows, for groups that do not declare their own. */
export function columnsFromRows(rows) {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return keys.map((key) => ({ key, label: key, align: typeof rows[0]?.[key] === 'number' ? 'right' : 'left' }));
}
