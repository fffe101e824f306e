// A unified diff of two lists of messages (one message = one unit, however long), and a readable rendering of it:
// long messages are shown around their first difference rather than whole.

/** The edit script from `a` to `b` (longest common subsequence): [{ op: ' ' | '-' | '+', a?, b? }] by index. */
function editScript(a, b) {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ op: ' ', a: i++, b: j++ });
    // Removals before additions, as unified diffs show a changed line.
    else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ op: '-', a: i++ });
    else ops.push({ op: '+', b: j++ });
  }
  return ops;
}

/**
 * The hunks turning `golden` into `actual`: each { ops, removed, added, goldenAt, actualAt } with `context`
 * unchanged messages around the changes (indexes are 0-based positions in each list).
 */
export function diffMessages(golden, actual, context = 1) {
  const ops = editScript(golden, actual);
  const hunks = [];
  let current;
  let lastChange = -Infinity;
  ops.forEach((entry, at) => {
    if (entry.op === ' ') return;
    if (!current || at - lastChange > 2 * context + 1) {
      current = { start: Math.max(0, at - context), end: at };
      hunks.push(current);
    }
    current.end = at;
    lastChange = at;
  });
  return hunks.map(({ start, end }) => {
    const slice = ops.slice(start, Math.min(ops.length, end + context + 1));
    const removed = slice.filter((o) => o.op === '-').map((o) => ({ at: o.a, text: golden[o.a] }));
    const added = slice.filter((o) => o.op === '+').map((o) => ({ at: o.b, text: actual[o.b] }));
    const before = ops.slice(0, start);
    return {
      ops: slice.map((o) => ({ ...o, text: o.op === '+' ? actual[o.b] : golden[o.a] })),
      removed,
      added,
      goldenAt: before.filter((o) => o.op !== '+').length,
      actualAt: before.filter((o) => o.op !== '-').length,
    };
  });
}

const SHOWN = 300;
const clip = (text, from, to) => `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
/** A message on one line of the report: a multi-line one (an HTTP head and body) with its breaks shown as ⏎. */
const oneLine = (text) => text.replaceAll('\n', '⏎');

/** The index of the first character where `a` and `b` differ. */
function firstDifference(a, b) {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  return at;
}

/** The start of a message transcript.mjs kept as its hash, length, start and end (it was too long to keep). */
const COMPACTED = /^\[\d+ characters, sha256 [0-9a-f]+\] /;

/** The lines of a unified diff of one hunk, long messages cut around where they differ from their counterpart. */
export function renderHunk(hunk) {
  const lines = [`@@ golden message ${hunk.goldenAt + 1}, new message ${hunk.actualAt + 1} @@`];
  const counterpart = (entry) => {
    const own = entry.op === '-' ? hunk.removed : hunk.added;
    const other = entry.op === '-' ? hunk.added : hunk.removed;
    const index = own.findIndex((x) => x.at === (entry.op === '-' ? entry.a : entry.b));
    return other[index]?.text;
  };
  for (const entry of hunk.ops) {
    const text = oneLine(entry.text);
    if (entry.op === ' ') {
      lines.push(`  ${clip(text, 0, SHOWN)}`);
      continue;
    }
    const other = counterpart(entry);
    if (other === undefined) {
      lines.push(`${entry.op} ${clip(text, 0, SHOWN * 2)}`);
      continue;
    }
    const otherText = oneLine(other);
    if (
      COMPACTED.test(text) &&
      COMPACTED.test(otherText) &&
      text.replace(COMPACTED, '') === otherText.replace(COMPACTED, '')
    ) {
      lines.push(`${entry.op} ${clip(text, 0, SHOWN)}   (differs in its middle, which transcripts do not keep)`);
      continue;
    }
    const at = firstDifference(text, otherText);
    const from = text.length <= SHOWN * 2 ? 0 : Math.max(0, at - SHOWN / 2);
    const to = text.length <= SHOWN * 2 ? text.length : from + SHOWN;
    lines.push(`${entry.op} ${clip(text, from, to)}   (first difference at character ${at + 1})`);
  }
  return lines;
}
